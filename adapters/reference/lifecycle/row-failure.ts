// A local failure that ends one lifecycle row (a transport failure, a watchdog, a refused control
// call, an upload that could not be made). Its message is the report row's `error`: a short label
// naming the step, never a response body, credential, endpoint or port.

export class RowFailure extends Error {
  override readonly name = 'RowFailure';
}
