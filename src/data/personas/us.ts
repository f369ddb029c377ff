import type { CountryData } from "./types";

export const US: CountryData = {
  male: ["James", "Michael", "Robert", "John", "David", "William", "Richard", "Joseph", "Thomas", "Christopher", "Charles", "Daniel", "Matthew", "Anthony", "Mark", "Steven", "Andrew", "Joshua", "Kevin", "Brian", "Ryan", "Jacob", "Nicholas", "Eric", "Jonathan", "Justin", "Brandon", "Tyler", "Aaron", "Nathan", "Adam", "Kyle", "Ethan", "Logan", "Mason"],
  female: ["Mary", "Patricia", "Jennifer", "Linda", "Elizabeth", "Barbara", "Susan", "Jessica", "Sarah", "Karen", "Lisa", "Nancy", "Ashley", "Emily", "Michelle", "Amanda", "Melissa", "Stephanie", "Rebecca", "Laura", "Megan", "Rachel", "Hannah", "Samantha", "Nicole", "Katherine", "Olivia", "Emma", "Abigail", "Madison", "Chloe", "Grace", "Lauren", "Kayla", "Brittany"],
  last: ["Smith", "Johnson", "Williams", "Brown", "Jones", "Garcia", "Miller", "Davis", "Rodriguez", "Martinez", "Hernandez", "Lopez", "Wilson", "Anderson", "Thomas", "Taylor", "Moore", "Jackson", "Martin", "Lee", "Thompson", "White", "Harris", "Clark", "Lewis", "Robinson", "Walker", "Young", "Allen", "King", "Wright", "Scott", "Green", "Baker", "Adams", "Nelson", "Hill", "Campbell", "Mitchell", "Carter"],
  streets: ["Main Street", "Oak Street", "Maple Avenue", "Cedar Lane", "Pine Street", "Elm Street", "Washington Avenue", "Lake Drive", "Hillcrest Road", "Park Avenue", "Sunset Boulevard", "Church Street", "Highland Avenue", "Walnut Street", "River Road", "Meadow Lane", "Lincoln Avenue", "Jefferson Street", "Chestnut Street", "Spring Street", "Willow Court", "Forest Drive"],
  cities: [
    { city: "New York", region: "NY", postal: ["10001", "10011", "10016", "10024", "10128"], areaCodes: ["212", "646"] },
    { city: "Los Angeles", region: "CA", postal: ["90012", "90026", "90036", "90046", "90064"], areaCodes: ["213", "323"] },
    { city: "Chicago", region: "IL", postal: ["60601", "60614", "60622", "60640", "60657"], areaCodes: ["312", "773"] },
    { city: "Houston", region: "TX", postal: ["77002", "77006", "77019", "77024", "77098"], areaCodes: ["713", "832"] },
    { city: "Phoenix", region: "AZ", postal: ["85003", "85008", "85016", "85018", "85032"], areaCodes: ["602", "480"] },
    { city: "Philadelphia", region: "PA", postal: ["19103", "19106", "19123", "19130", "19147"], areaCodes: ["215", "267"] },
    { city: "San Antonio", region: "TX", postal: ["78205", "78209", "78212", "78216", "78230"], areaCodes: ["210"] },
    { city: "San Diego", region: "CA", postal: ["92101", "92103", "92104", "92109", "92122"], areaCodes: ["619", "858"] },
    { city: "Dallas", region: "TX", postal: ["75201", "75204", "75206", "75214", "75230"], areaCodes: ["214", "469"] },
    { city: "Austin", region: "TX", postal: ["78701", "78703", "78704", "78745", "78758"], areaCodes: ["512", "737"] },
    { city: "Seattle", region: "WA", postal: ["98101", "98103", "98105", "98115", "98122"], areaCodes: ["206"] },
    { city: "Denver", region: "CO", postal: ["80202", "80203", "80206", "80210", "80218"], areaCodes: ["303", "720"] },
    { city: "Boston", region: "MA", postal: ["02108", "02115", "02116", "02127", "02130"], areaCodes: ["617", "857"] },
    { city: "Portland", region: "OR", postal: ["97201", "97205", "97209", "97214", "97232"], areaCodes: ["503", "971"] },
    { city: "Atlanta", region: "GA", postal: ["30303", "30305", "30306", "30308", "30318"], areaCodes: ["404", "678"] },
    { city: "Miami", region: "FL", postal: ["33125", "33130", "33131", "33133", "33137"], areaCodes: ["305", "786"] },
    { city: "Minneapolis", region: "MN", postal: ["55401", "55403", "55405", "55408", "55414"], areaCodes: ["612"] },
    { city: "Nashville", region: "TN", postal: ["37203", "37205", "37206", "37209", "37212"], areaCodes: ["615", "629"] },
  ],
};
