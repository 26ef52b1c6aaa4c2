// Upload steps (LIFECYCLE-RULES §5): settings from the step's own `upload` (replacing, never merging)
// or the client config's; the endpoint from those settings verbatim, else (only when they name none)
// the spawned server's readiness `uploadEndpoint`; the token from the environment variable the
// settings name — never an event credential. Settings without `auth` (SENDER-ISOLATION-RULES §2)
// upload anonymously: no Authorization at all, even when upload tokens sit in the environment. The
// receiver's status is the result, whatever it is; only a 201 whose receipt confirms exactly the
// bytes sent binds the step's alias to the receiver's ref, and no other status ever rebinds one.
// Anything that prevents a real upload is a local failure of the row, never a status.

import { uploadStepBytes } from '../../../harness/lifecycle-adapters/content-sources.ts';
import { sha256Hex } from '../../../harness/protocol/sha256-hex.ts';
import type { UploadStep } from '../../../harness/lifecycle-adapters/scenario-types.ts';
import type { ProtocolValidators } from '../../../harness/protocol/validator-types.ts';
import { stepUploadSettings, type UploadSettings } from './config.ts';
import { rawUpload } from './raw-upload.ts';
import { RowFailure } from './row-failure.ts';

const CONFIRMED = 201;

export class Uploads {
  constructor(
    private readonly configured: UploadSettings | undefined,
    /** The spawned server's readiness `uploadEndpoint` (stdio), used when the settings name none. */
    private readonly fallbackEndpoint: string | undefined,
    private readonly env: NodeJS.ProcessEnv,
    private readonly validators: Pick<ProtocolValidators, 'contentUploadReceipt'>,
    /** Fixture alias → receiver-assigned ref, shared by every later event body. */
    readonly bindings: Map<string, string>,
  ) {}

  /** Performs `step` and returns the receiver's HTTP status. */
  async run(step: UploadStep): Promise<number> {
    const settings = step.upload !== undefined ? stepUploadSettings(step.upload) : this.configured;
    if (settings === undefined) throw new RowFailure('upload: no upload settings (neither the config nor the step has `upload`)');
    const endpoint = settings.endpoint ?? this.fallbackEndpoint;
    if (endpoint === undefined) throw new RowFailure('upload: no upload endpoint (upload.endpoint, or the spawned server\'s uploadEndpoint)');
    const token = settings.tokenEnv === undefined ? undefined : this.env[settings.tokenEnv];
    if (settings.tokenEnv !== undefined && (token === undefined || token === '')) throw new RowFailure(`upload: environment variable ${settings.tokenEnv} is not set`);
    const bytes = uploadStepBytes(step);
    if (bytes === undefined) throw new RowFailure('upload: the step\'s bytes are not strict base64 or well-formed text');
    if (bytes.length > settings.maxBytes) throw new RowFailure(`upload: ${bytes.length} bytes exceed maxBytes ${settings.maxBytes}`);

    const answer = await rawUpload({ endpoint, bytes, declaredSize: step.size, declaredSha256: step.sha256, token, timeoutMs: settings.timeoutMs });
    if (!answer.ok) throw new RowFailure(answer.error);
    if (answer.status !== CONFIRMED) return answer.status;
    const receipt = answer.body;
    const confirms =
      this.validators.contentUploadReceipt(receipt).valid &&
      (receipt as { size: number }).size === bytes.length &&
      (receipt as { sha256: string }).sha256 === sha256Hex(bytes);
    if (!confirms) throw new RowFailure('upload: the 201 receipt does not confirm the bytes sent');
    this.bindings.set(step.ref, (receipt as { ref: string }).ref);
    return answer.status;
  }
}
