// Back to the vault as soon as the connection returns.
window.addEventListener("online", () => location.assign("/vault"));
