import type { CountryData } from "./types";

export const CA: CountryData = {
  male: ["Liam", "Noah", "William", "Benjamin", "Lucas", "Ethan", "Jacob", "Logan", "Nathan", "Samuel", "Thomas", "Alexander", "Owen", "Jack", "Olivier", "Félix", "Gabriel", "Émile", "Mathis", "Hunter", "Connor", "Dylan", "Tyler", "Carter", "Wyatt", "Isaac", "Adam", "Raphaël", "Xavier", "Nolan"],
  female: ["Olivia", "Emma", "Charlotte", "Amelia", "Ava", "Sophia", "Chloe", "Emily", "Abigail", "Ella", "Léa", "Alice", "Florence", "Juliette", "Béatrice", "Rosalie", "Zoé", "Maya", "Hannah", "Avery", "Brooklyn", "Claire", "Madison", "Scarlett", "Nora", "Mila", "Camille", "Evelyn", "Aria", "Élodie"],
  last: ["Smith", "Brown", "Tremblay", "Martin", "Roy", "Wilson", "MacDonald", "Gagnon", "Johnson", "Taylor", "Côté", "Campbell", "Anderson", "Leblanc", "Lee", "Jones", "White", "Williams", "Miller", "Thompson", "Gauthier", "Young", "Van Dyk", "Morin", "Bouchard", "Scott", "Stewart", "Belanger", "Reid", "Pelletier", "Moore", "Lavoie", "King", "Fortin", "Clarke"],
  streets: ["Main Street", "King Street", "Queen Street", "Yonge Street", "Maple Avenue", "Church Street", "Elm Street", "Victoria Street", "Wellington Street", "Park Avenue", "Rue Principale", "Rue Saint-Denis", "Boulevard Saint-Laurent", "Lakeshore Road", "Pine Crescent", "Birch Avenue", "Cedar Drive", "Spruce Street", "Dundas Street", "College Street"],
  cities: [
    { city: "Toronto", region: "ON", postal: ["M5V", "M4Y", "M6G", "M5R", "M4L"], areaCodes: ["416", "647"] },
    { city: "Ottawa", region: "ON", postal: ["K1P", "K1N", "K1S", "K2P", "K1Y"], areaCodes: ["613", "343"] },
    { city: "Hamilton", region: "ON", postal: ["L8P", "L8L", "L8M", "L8S", "L9A"], areaCodes: ["905", "289"] },
    { city: "Montréal", region: "QC", postal: ["H2X", "H2T", "H3A", "H2J", "H4A"], areaCodes: ["514", "438"] },
    { city: "Québec", region: "QC", postal: ["G1R", "G1K", "G1S", "G1L", "G1V"], areaCodes: ["418", "581"] },
    { city: "Vancouver", region: "BC", postal: ["V6B", "V5K", "V6K", "V5N", "V6H"], areaCodes: ["604", "778"] },
    { city: "Victoria", region: "BC", postal: ["V8W", "V8V", "V8R", "V8T", "V9A"], areaCodes: ["250"] },
    { city: "Calgary", region: "AB", postal: ["T2P", "T2R", "T3A", "T2S", "T2T"], areaCodes: ["403", "587"] },
    { city: "Edmonton", region: "AB", postal: ["T5J", "T5K", "T6E", "T6G", "T5N"], areaCodes: ["780", "587"] },
    { city: "Winnipeg", region: "MB", postal: ["R3C", "R3B", "R3L", "R3M", "R2M"], areaCodes: ["204", "431"] },
    { city: "Halifax", region: "NS", postal: ["B3H", "B3J", "B3K", "B3L", "B3M"], areaCodes: ["902", "782"] },
    { city: "Saskatoon", region: "SK", postal: ["S7K", "S7H", "S7N", "S7J", "S7L"], areaCodes: ["306", "639"] },
    { city: "St. John's", region: "NL", postal: ["A1C", "A1B", "A1E", "A1A", "A1H"], areaCodes: ["709"] },
  ],
};
