/**
 * An id or a recorded value shown whole: monospace, wrapping anywhere rather than cut, selectable in one
 * click, isolated from the surrounding text direction. With a name, the name leads and the id follows.
 */
export function WholeValue({
  value,
  name,
  placeholder = "—",
  testId,
}: {
  value: string | null | undefined;
  name?: string | null;
  placeholder?: string;
  testId?: string;
}) {
  if (value === null || value === undefined || value === "") {
    return <span className="muted">{placeholder}</span>;
  }
  const id = (
    <bdi className="whole-id mono" data-testid={testId}>
      {value}
    </bdi>
  );
  if (!name || name === value) return id;
  return (
    <>
      <strong className="whole-name">
        <bdi>{name}</bdi>
      </strong>{" "}
      ({id})
    </>
  );
}
