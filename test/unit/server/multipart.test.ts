// The local platform's multipart/form-data reader: RFC 7578 bodies as clients write them (Python's
// requests-toolbelt, fetch's FormData, curl), views into the body rather than copies, and a coded 400 for the rest.
import { describe, expect, test } from 'vitest';
import { HttpError } from '../../../server/http.js';
import { multipartBoundary, parseMultipart } from '../../../server/multipart.js';

const refusal = (f: () => unknown): HttpError => {
  try {
    f();
  } catch (e) {
    return e as HttpError;
  }
  throw new Error('expected a refusal');
};

const text = (parts: ReturnType<typeof parseMultipart>) => parts.map(({ data, ...rest }) => ({ ...rest, data: data.toString('latin1') }));

describe('multipartBoundary', () => {
  test.each([
    ['multipart/form-data; boundary=4078e5969ca24d10a472f10035e1033e', '4078e5969ca24d10a472f10035e1033e'],
    ['Multipart/Form-Data;boundary="a b:c"', 'a b:c'],
    ['multipart/form-data; charset=utf-8; boundary=----WebKitFormBoundaryX', '----WebKitFormBoundaryX'],
  ])('%s', (type, boundary) => {
    expect(multipartBoundary(type)).toBe(boundary);
  });

  test('other types are not multipart', () => {
    for (const type of [undefined, '', 'application/x-www-form-urlencoded', 'text/plain', 'multipart/mixed; boundary=x'])
      expect(multipartBoundary(type)).toBeNull();
  });

  test('a multipart type without a usable boundary is a 400 MalformedMultipart', () => {
    for (const type of [
      'multipart/form-data',
      'multipart/form-data; boundary=',
      'multipart/form-data; boundary="ends in space "',
      `multipart/form-data; boundary=${'x'.repeat(71)}`,
    ]) {
      const e = refusal(() => multipartBoundary(type));
      expect([e.status, e.type]).toEqual([400, 'MalformedMultipart']);
    }
  });
});

describe('parseMultipart', () => {
  test("requests-toolbelt's body, as the platform's Python SDK sends an image", () => {
    const body = Buffer.concat([
      Buffer.from(
        '--4078e5969ca24d10a472f10035e1033e\r\nContent-Disposition: form-data; name="file"; filename="imageToUpload"\r\nContent-Type: image/jpeg\r\n\r\n',
      ),
      Buffer.from([0xff, 0xd8, 0x0d, 0x0a, 0x2d, 0x2d, 0xff, 0xd9]),
      Buffer.from('\r\n--4078e5969ca24d10a472f10035e1033e--\r\n'),
    ]);
    const [part, ...rest] = parseMultipart(body, '4078e5969ca24d10a472f10035e1033e');
    expect(rest).toEqual([]);
    expect(part).toMatchObject({ name: 'file', filename: 'imageToUpload', contentType: 'image/jpeg' });
    // The bytes as sent, CRLF and dashes inside them included, and a view into the body, not a copy.
    expect([...part!.data]).toEqual([0xff, 0xd8, 0x0d, 0x0a, 0x2d, 0x2d, 0xff, 0xd9]);
    expect(part!.data.buffer).toBe(body.buffer);
  });

  test("fetch's FormData, read back part for part", async () => {
    const form = new FormData();
    form.append('name', 'a "quoted" name');
    form.append('file', new Blob([new Uint8Array([1, 2, 3])], { type: 'image/png' }), 'x.png');
    const request = new Request('http://localhost/', { method: 'POST', body: form });
    const body = Buffer.from(await request.arrayBuffer());
    const boundary = multipartBoundary(request.headers.get('content-type')!)!;
    const parts = parseMultipart(body, boundary);
    expect(parts.map((p) => [p.name, p.filename, p.contentType])).toEqual([
      ['name', undefined, undefined],
      ['file', 'x.png', 'image/png'],
    ]);
    expect(parts[0]!.data.toString()).toBe('a "quoted" name');
    expect([...parts[1]!.data]).toEqual([1, 2, 3]);
  });

  test('a preamble, transport padding, header names in any case and an epilogue, as RFC 2046 allows', () => {
    const body = Buffer.from(
      'ignored preamble\r\n--b  \r\ncontent-disposition: FORM-DATA; NAME=plain\r\n\r\none\r\n--b\r\nContent-Disposition: form-data; name="e"; filename=""\r\n\r\n\r\n--b--\r\nignored epilogue',
    );
    expect(text(parseMultipart(body, 'b'))).toEqual([
      { name: 'plain', data: 'one' },
      { name: 'e', filename: '', data: '' },
    ]);
  });

  test.each([
    ['no boundary at all', 'just text'],
    ['no closing boundary', '--b\r\nContent-Disposition: form-data; name="file"\r\n\r\nabc'],
    ['headers that never end', '--b\r\nContent-Disposition: form-data; name="file"\r\nabc'],
    ['a part without a name', '--b\r\nContent-Disposition: form-data\r\n\r\nabc\r\n--b--'],
    ['a part without Content-Disposition', '--b\r\nContent-Type: image/png\r\n\r\nabc\r\n--b--'],
    ['a part that is not form-data', '--b\r\nContent-Disposition: attachment; name="file"\r\n\r\nabc\r\n--b--'],
    ['a header line without a colon', '--b\r\nContent-Disposition: form-data; name="file"\r\nnonsense\r\n\r\nabc\r\n--b--'],
    ['a longer boundary on the boundary line', '--bb\r\nContent-Disposition: form-data; name="file"\r\n\r\nabc\r\n--b--'],
    ['LF line ends only', '--b\nContent-Disposition: form-data; name="file"\n\nabc\n--b--'],
  ])('%s is a 400 MalformedMultipart', (_name, body) => {
    const e = refusal(() => parseMultipart(Buffer.from(body), 'b'));
    expect([e.status, e.type]).toEqual([400, 'MalformedMultipart']);
  });

  test('more parts than the limit, or headers longer than it, are refused before they are read', () => {
    const part = '--b\r\nContent-Disposition: form-data; name="x"\r\n\r\n1\r\n';
    expect(parseMultipart(Buffer.from(`${part.repeat(3)}--b--`), 'b', { maxParts: 3, maxHeaderBytes: 100 })).toHaveLength(3);
    expect(
      refusal(() => parseMultipart(Buffer.from(`${part.repeat(4)}--b--`), 'b', { maxParts: 3, maxHeaderBytes: 100 })).message,
    ).toContain('more than 3 parts');
    const long = `--b\r\nContent-Disposition: form-data; name="x"\r\nX-Pad: ${'p'.repeat(200)}\r\n\r\n1\r\n--b--`;
    expect(refusal(() => parseMultipart(Buffer.from(long), 'b', { maxParts: 3, maxHeaderBytes: 100 })).message).toContain('100 bytes');
  });
});
