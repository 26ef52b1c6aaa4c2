// Names as parts of file and folder names (harness/adapters/file-name-part.ts): nothing of a name can
// reach outside its folder, lengths are bounded where asked, and an adapter's part is never empty.

import { describe, expect, test } from 'vitest';

import { adapterFolderPart, fileNamePart } from '../../harness/adapters/file-name-part.ts';

describe('fileNamePart', () => {
  test('keeps letters, digits, _ . -; every other run of characters becomes one _', () => {
    expect(fileNamePart('py.sdk→ts http/none')).toBe('py.sdk_ts_http_none');
    expect(fileNamePart('../../etc/passwd')).toBe('.._.._etc_passwd');
    expect(fileNamePart('a b', 2)).toBe('a_');
  });

  test('an adapter part is at most 40 characters and never empty', () => {
    expect(adapterFolderPart('x'.repeat(50))).toBe('x'.repeat(40));
    expect(adapterFolderPart('')).toBe('adapter');
    expect(adapterFolderPart('/')).toBe('_');
  });
});
