import parsePrometheusTextFormat, { type ParsedFamily } from "parse-prometheus-text-format";

/** A scrape read back with a Prometheus text-format parser, and the samples asked of it. */
export interface Scrape {
  families: ParsedFamily[];
  /** The family named so; fails the test's expectation when there is none. */
  family(name: string): ParsedFamily;
  /** The one sample of `name` whose labels include `labels`; undefined when none. */
  value(name: string, labels?: Record<string, string>): number | undefined;
  /** Every sample of `name`, with its labels and value. */
  samples(name: string): { labels: Record<string, string>; value: number }[];
}

export function readScrape(text: string): Scrape {
  const families = parsePrometheusTextFormat(text);
  const family = (name: string): ParsedFamily => {
    const found = families.find((candidate) => candidate.name === name);
    if (!found) throw new Error(`no metric family ${name} in the scrape`);
    return found;
  };
  const samples = (name: string) =>
    family(name).metrics.map((sample) => ({ labels: sample.labels ?? {}, value: Number(sample.value) }));
  return {
    families,
    family,
    samples,
    value(name, labels = {}) {
      const matching = samples(name).filter((sample) =>
        Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
      );
      if (matching.length > 1) throw new Error(`${matching.length} samples of ${name} match`);
      return matching[0]?.value;
    },
  };
}
