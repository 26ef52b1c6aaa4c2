// Names (adapters, groups, probes) as parts of file and folder names: anything but [A-Za-z0-9_.-]
// becomes `_`, so a name can never reach outside its folder or trip a shell.

/** `name` as a file-name part, at most `maxLength` characters. */
export function fileNamePart(name: string, maxLength = Number.POSITIVE_INFINITY): string {
  return name.replace(/[^A-Za-z0-9_.-]+/g, '_').slice(0, maxLength);
}

/** An adapter's name as a short folder-name part; never empty. */
export function adapterFolderPart(name: string): string {
  return fileNamePart(name, 40) || 'adapter';
}

/** A group label (`server→client transport/mode`) as a file-name part. */
export function safeLabel(label: string): string {
  return fileNamePart(label.replace(/→/g, '-to-'));
}
