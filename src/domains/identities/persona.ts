import { CA, GB, US, type CountryData } from "../../data/personas";

export type Country = "US" | "GB" | "CA";
export type GenderChoice = "male" | "female" | "any";

export type Persona = {
  firstName: string;
  lastName: string;
  displayName: string;
  username: string;
  gender: "male" | "female";
  dateOfBirth: string;
  phoneNumber: string | null;
  addressLine1: string;
  addressCity: string;
  addressState: string;
  addressZip: string;
  addressCountry: Country;
};

const DATA: Record<Country, CountryData> = { US, GB, CA };

/** Uniform integer in [0, n) from the CSPRNG, without modulo bias. */
export function randomInt(n: number): number {
  const limit = Math.floor(0x1_0000_0000 / n) * n;
  const buf = new Uint32Array(1);
  for (;;) {
    crypto.getRandomValues(buf);
    if (buf[0] < limit) return buf[0] % n;
  }
}

const pick = <T>(items: readonly T[]): T => items[randomInt(items.length)];
const digits = (n: number) => Array.from({ length: n }, () => String(randomInt(10))).join("");

// Royal Mail inward codes never use C, I, K, M, O or V; Canada Post never uses D, F, I, O, Q or U.
const GB_INWARD_LETTERS = "ABDEFGHJLNPQRSTUWXYZ";
const CA_LETTERS = "ABCEGHJKLMNPRSTVWXYZ";

function postalCode(country: Country, prefix: string): string {
  if (country === "US") return prefix;
  if (country === "GB")
    return `${prefix} ${randomInt(10)}${pick([...GB_INWARD_LETTERS])}${pick([...GB_INWARD_LETTERS])}`;
  return `${prefix} ${randomInt(10)}${pick([...CA_LETTERS])}${randomInt(10)}`;
}

/**
 * Numbers from ranges reserved for fiction, so a persona never carries someone's real number:
 * NANP 555-0100 to 555-0199 (US, CA) and Ofcom's drama range 07700 900000 to 900999 (GB).
 */
function phoneNumber(country: Country, areaCodes: string[] | undefined): string {
  if (country === "GB") return `07700 900${digits(3)}`;
  return `(${pick(areaCodes ?? ["555"])}) 555-01${digits(2)}`;
}

function houseNumber(country: Country): string {
  return String(country === "GB" ? 1 + randomInt(180) : 10 + randomInt(9980));
}

/** A date of birth for an adult of 21 to 65, as an ISO date. */
function dateOfBirth(now = new Date()): string {
  const ageDays = (21 + randomInt(45)) * 365 + randomInt(365);
  return new Date(now.getTime() - ageDays * 86_400_000).toISOString().slice(0, 10);
}

function ascii(s: string): string {
  return s
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .replace(/[^A-Za-z0-9]/g, "")
    .toLowerCase();
}

function username(first: string, last: string, dob: string): string {
  const f = ascii(first);
  const l = ascii(last);
  const year = dob.slice(2, 4);
  const forms = [
    `${f}.${l}`,
    `${f}${l}${year}`,
    `${f[0]}${l}${digits(2)}`,
    `${f}_${l}${digits(3)}`,
    `${l}${f[0]}${year}`,
  ];
  return pick(forms);
}

export function generatePersona(
  country: Country,
  gender: GenderChoice,
  withPhone: boolean,
): Persona {
  const data = DATA[country];
  const g = gender === "any" ? pick(["male", "female"] as const) : gender;
  const firstName = pick(g === "male" ? data.male : data.female);
  const lastName = pick(data.last);
  const city = pick(data.cities);
  const dob = dateOfBirth();
  return {
    firstName,
    lastName,
    displayName: `${firstName} ${lastName}`,
    username: username(firstName, lastName, dob),
    gender: g,
    dateOfBirth: dob,
    phoneNumber: withPhone ? phoneNumber(country, city.areaCodes) : null,
    addressLine1: `${houseNumber(country)} ${pick(data.streets)}`,
    addressCity: city.city,
    addressState: city.region,
    addressZip: postalCode(country, pick(city.postal)),
    addressCountry: country,
  };
}

export function countryData(country: Country): CountryData {
  return DATA[country];
}
