// The lifecycle family client's report as it stands: rows finished so far, in file order when
// written. Interrupting seals it — every unfinished row failed with the reason, later results
// ignored — so what a signal path writes is what stands. `header` holds the family's extra top-level
// fields (the catalogue's `discovery`), written right after `language`.

import type { ReportRow } from '../../../harness/oracle/report-row.ts';
import type { JsonValue } from '../../../harness/protocol/json.ts';
import { writeJsonAtomic } from '../lib/atomic-write.ts';
import { ADAPTER_LANGUAGE } from '../lib/paths.ts';

export class ReportBook {
  private readonly rows = new Map<string, ReportRow>();
  private sealed = false;
  /** Over stdio: the spawned receiver's GET /receipts, verbatim. */
  receipts: unknown;

  constructor(
    private readonly file: string,
    private readonly rowIds: readonly string[],
    readonly header: Record<string, JsonValue> = {},
  ) {}

  set(row: ReportRow): void {
    if (!this.sealed) this.rows.set(row.id, row);
  }

  seal(reason: string): void {
    this.failRemaining(reason);
    this.sealed = true;
  }

  failRemaining(error: string): void {
    for (const id of this.rowIds) if (!this.rows.has(id)) this.set({ id, status: 'failed', actual: null, error });
  }

  failures(): number {
    return [...this.rows.values()].filter((row) => row.status === 'failed').length;
  }

  /** Writes the report; once sealed, only the sealing path (`final`) writes. */
  async write(final = false): Promise<void> {
    if (this.sealed && !final) return;
    const results = this.rowIds.map((id) => this.rows.get(id) ?? { id, status: 'failed' as const, actual: null, error: 'not run' });
    await writeJsonAtomic(this.file, { language: ADAPTER_LANGUAGE, ...this.header, results, ...(this.receipts !== undefined ? { receipts: this.receipts } : {}) });
  }
}
