// Whether JSON text repeats a key within one object. JSON.parse keeps the last one silently, so two
// parsers may read such a body differently; the receiver and the helper refuse it instead (the
// protocol's conformance checker asks the same of the inline binding's text). Expects text that
// JSON.parse has already accepted.

export function hasDuplicateKey(text: string): boolean {
  const objects: Array<Set<string> | null> = [];
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (char === '"') {
      let end = i + 1;
      while (text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
      const top = objects[objects.length - 1];
      if (expectKey && top) {
        const key = JSON.parse(text.slice(i, end + 1)) as string;
        if (top.has(key)) return true;
        top.add(key);
      }
      expectKey = false;
      i = end;
    } else if (char === '{') {
      objects.push(new Set());
      expectKey = true;
    } else if (char === '[') {
      objects.push(null);
    } else if (char === '}' || char === ']') {
      objects.pop();
    } else if (char === ',') {
      expectKey = objects[objects.length - 1] !== null && objects.length > 0;
    }
  }
  return false;
}
