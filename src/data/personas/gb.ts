import type { CountryData } from "./types";

export const GB: CountryData = {
  male: ["Oliver", "George", "Harry", "Jack", "Jacob", "Noah", "Charlie", "Thomas", "Oscar", "William", "James", "Henry", "Leo", "Alfie", "Joshua", "Freddie", "Archie", "Ethan", "Isaac", "Alexander", "Joseph", "Edward", "Samuel", "Max", "Daniel", "Arthur", "Lucas", "Benjamin", "Theo", "Callum", "Liam", "Rhys", "Owen", "Ewan", "Finlay"],
  female: ["Olivia", "Amelia", "Isla", "Ava", "Emily", "Isabella", "Mia", "Poppy", "Ella", "Lily", "Jessica", "Sophie", "Grace", "Evie", "Ruby", "Charlotte", "Daisy", "Freya", "Alice", "Florence", "Sienna", "Phoebe", "Eleanor", "Matilda", "Harriet", "Imogen", "Lucy", "Chloe", "Holly", "Megan", "Eilidh", "Niamh", "Bethan", "Rhian", "Zara"],
  last: ["Smith", "Jones", "Taylor", "Brown", "Williams", "Wilson", "Johnson", "Davies", "Robinson", "Wright", "Thompson", "Evans", "Walker", "White", "Roberts", "Green", "Hall", "Wood", "Jackson", "Clarke", "Patel", "Khan", "Lewis", "James", "Phillips", "Mason", "Mitchell", "Rose", "Davis", "Rodgers", "Hughes", "Edwards", "Turner", "Hill", "Cooper", "Ward", "Morris", "King", "Harrison", "Baker"],
  streets: ["High Street", "Station Road", "Church Lane", "Victoria Road", "Green Lane", "Manor Road", "Park Road", "Queens Road", "Kings Road", "Mill Lane", "School Lane", "The Crescent", "Grange Road", "New Road", "Alexandra Road", "York Road", "Springfield Road", "Windsor Road", "Richmond Road", "Albert Road", "North Street", "Chapel Street"],
  cities: [
    { city: "London", region: "Greater London", postal: ["SW1A", "SE1", "N1", "E2", "NW3", "W11", "EC1V"] },
    { city: "Manchester", region: "Greater Manchester", postal: ["M1", "M4", "M14", "M20", "M21"] },
    { city: "Birmingham", region: "West Midlands", postal: ["B1", "B5", "B13", "B15", "B17"] },
    { city: "Leeds", region: "West Yorkshire", postal: ["LS1", "LS2", "LS6", "LS8", "LS17"] },
    { city: "Sheffield", region: "South Yorkshire", postal: ["S1", "S7", "S10", "S11", "S17"] },
    { city: "Bristol", region: "City of Bristol", postal: ["BS1", "BS6", "BS8", "BS7", "BS9"] },
    { city: "Liverpool", region: "Merseyside", postal: ["L1", "L8", "L15", "L17", "L18"] },
    { city: "Newcastle upon Tyne", region: "Tyne and Wear", postal: ["NE1", "NE2", "NE3", "NE4", "NE6"] },
    { city: "Nottingham", region: "Nottinghamshire", postal: ["NG1", "NG2", "NG5", "NG7", "NG9"] },
    { city: "Leicester", region: "Leicestershire", postal: ["LE1", "LE2", "LE3", "LE4", "LE5"] },
    { city: "Edinburgh", region: "City of Edinburgh", postal: ["EH1", "EH3", "EH9", "EH10", "EH12"] },
    { city: "Glasgow", region: "Glasgow City", postal: ["G1", "G3", "G11", "G12", "G41"] },
    { city: "Cardiff", region: "Cardiff", postal: ["CF10", "CF11", "CF14", "CF23", "CF24"] },
    { city: "Belfast", region: "County Antrim", postal: ["BT1", "BT7", "BT9", "BT5", "BT15"] },
  ],
};
