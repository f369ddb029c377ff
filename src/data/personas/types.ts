/** One city with the region and postal-code material that really belong together. */
export type City = {
  city: string;
  /** US state or CA province code; GB county or region. */
  region: string;
  /** US: real ZIP codes of the city. GB: outward codes of the post town. CA: forward sortation areas. */
  postal: string[];
  /** NANP area codes of the city (US, CA); GB numbers use Ofcom's drama mobile range instead. */
  areaCodes?: string[];
};

export type CountryData = {
  male: string[];
  female: string[];
  last: string[];
  streets: string[];
  cities: City[];
};
