/** Saves an export as a file: a browser download (Electron turns a download into its save dialog). */
export function saveFile(file: { filename: string; contentType: string; content: string }): void {
  const blob = new Blob([file.content], { type: `${file.contentType};charset=utf-8` });
  const url = URL.createObjectURL(blob);
  const link = document.createElement("a");
  link.href = url;
  link.download = safeFilename(file.filename);
  link.rel = "noopener";
  link.style.display = "none";
  document.body.appendChild(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** A filename with no path, no control characters and nothing a shell or a file system would trip on. */
export function safeFilename(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? "";
  const clean = base
    .replace(/[^A-Za-z0-9._-]+/g, "-")
    .replace(/^[.-]+/, "")
    .slice(0, 120);
  return clean === "" ? "leasekeeper-audit" : clean;
}
