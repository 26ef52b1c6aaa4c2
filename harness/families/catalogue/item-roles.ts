// Content item identity in catalogue fixtures (CATALOGUE-RULES §3, §7 fixture tests; LIFECYCLE.md
// "Logical item identity and role must remain consistent"). An item descriptor is an object with an
// `id` that is either a content part (`kind`, `mediaType`) or a message (`role`, `parts`); its role is
// `part <kind> <mediaType>` or `message <role>`. Within one source an id keeps one role across the
// whole file, and our own fixtures namespace every item id by its row: `<row id>:item:<name>`.

import { isJsonObject, type JsonValue } from '../../protocol/json.ts';
import { eventOf } from './receipt-entries.ts';
import { isMessageStep, type CatalogueScenario } from './scenario-types.ts';

export interface ItemDescriptor {
  id: string;
  role: string;
  /** Where in the row: `steps[2].message.params.event.items[0].parts[1]`. */
  path: string;
}

/** Every item descriptor inside `value`, depth first in document order. */
export function itemDescriptors(value: unknown, path: string): ItemDescriptor[] {
  const found: ItemDescriptor[] = [];
  const walk = (node: JsonValue | unknown, at: string): void => {
    if (Array.isArray(node)) {
      node.forEach((child, i) => walk(child, `${at}[${i}]`));
      return;
    }
    if (!isJsonObject(node)) return;
    if (typeof node.id === 'string') {
      if ('kind' in node && 'mediaType' in node) found.push({ id: node.id, role: `part ${String(node.kind)} ${String(node.mediaType)}`, path: at });
      else if ('role' in node && 'parts' in node) found.push({ id: node.id, role: `message ${String(node.role)}`, path: at });
    }
    for (const [key, child] of Object.entries(node)) walk(child, `${at}.${key}`);
  };
  walk(value, path);
  return found;
}

/** Descriptors of every message a row sends, with the event's source. */
function rowDescriptors(row: CatalogueScenario): Array<ItemDescriptor & { source: unknown }> {
  return row.steps.flatMap((step, j) => {
    if (!isMessageStep(step)) return [];
    const event = eventOf(step.message);
    const source = isJsonObject(event) ? event.source : undefined;
    return itemDescriptors(step.message, `${row.id} steps[${j}].message`).map((d) => ({ ...d, source }));
  });
}

/** An item id that takes a second role within its source, anywhere in the file. */
export function itemRoleProblems(rows: readonly CatalogueScenario[]): string[] {
  const first = new Map<string, ItemDescriptor>();
  const problems: string[] = [];
  for (const row of rows) {
    for (const descriptor of rowDescriptors(row)) {
      const key = JSON.stringify([descriptor.source, descriptor.id]);
      const earlier = first.get(key);
      if (earlier === undefined) first.set(key, descriptor);
      else if (earlier.role !== descriptor.role) {
        problems.push(`item id ${JSON.stringify(descriptor.id)} of source ${JSON.stringify(descriptor.source)} is a ${descriptor.role} at ${descriptor.path} but a ${earlier.role} at ${earlier.path}`);
      }
    }
  }
  return problems;
}

/** An item id of a row that is not namespaced `<row id>:item:<name>`. */
export function itemNamespaceProblems(rows: readonly CatalogueScenario[]): string[] {
  return rows.flatMap((row) =>
    rowDescriptors(row)
      .filter((d) => !d.id.startsWith(`${row.id}:item:`) || d.id.length === `${row.id}:item:`.length)
      .map((d) => `item id ${JSON.stringify(d.id)} at ${d.path} is not namespaced ${JSON.stringify(`${row.id}:item:<name>`)}`),
  );
}
