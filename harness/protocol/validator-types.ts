// The contract between the schema loader and everything that validates messages. The oracle takes
// these as arguments so that it never compiles or loads schemas itself.

export interface SchemaCheck {
  valid: boolean;
  /** Human-readable errors, each naming the instance path and the failed keyword. Empty when valid. */
  errors: string[];
}

export type Validate = (value: unknown) => SchemaCheck;

/** One validator per canonical entry point, keyed by canonical file name. */
export interface ProtocolValidators {
  /** Absolute directory the schemas were loaded from. */
  readonly schemaDir: string;
  readonly interceptRequest: Validate; // intercept-request.schema.json
  readonly interceptResponse: Validate; // intercept-response.schema.json
  readonly capabilitiesRequest: Validate; // capabilities-request.schema.json
  readonly capabilitiesResponse: Validate; // capabilities-response.schema.json
  /** A bare capability set: what HTTP `GET /capabilities` answers in the ecosystem's binding. */
  readonly capabilities: Validate; // capabilities.schema.json
  readonly effect: Validate; // effect.schema.json
  readonly jsonRpcMessage: Validate; // json-rpc-message.schema.json
  /** A `hooks/observe` notification (lifecycle observation receipts and the expected §7.6 message). */
  readonly observeNotification: Validate; // observe-notification.schema.json
  /** The `{ref,size,sha256}` JSON body of a 201 content upload answer (and SDK upload confirmations). */
  readonly contentUploadReceipt: Validate; // content-upload-receipt.schema.json
  /** A portable registration document (the catalogue's SDK-local registration evaluation). */
  readonly registration: Validate; // registration.schema.json
}

export type EntryPoint = Exclude<keyof ProtocolValidators, 'schemaDir'>;

export const ENTRY_POINT_FILES: Record<EntryPoint, string> = {
  interceptRequest: 'intercept-request.schema.json',
  interceptResponse: 'intercept-response.schema.json',
  capabilitiesRequest: 'capabilities-request.schema.json',
  capabilitiesResponse: 'capabilities-response.schema.json',
  capabilities: 'capabilities.schema.json',
  effect: 'effect.schema.json',
  jsonRpcMessage: 'json-rpc-message.schema.json',
  observeNotification: 'observe-notification.schema.json',
  contentUploadReceipt: 'content-upload-receipt.schema.json',
  registration: 'registration.schema.json',
};
