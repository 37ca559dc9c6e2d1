// The image that a hosted-inference request carries in its body, in either form the platform takes: base64 text
// (the documented form: the raw body, with or without a `data:` URL prefix), or a multipart/form-data body with
// the image as its `file` part (what Roboflow's Python SDK sends for a file or an array).
import { badRequest, HttpError } from './http.js';
import { multipartBoundary, parseMultipart } from './multipart.js';

export function imageFromBody(body: Buffer, contentType: string | undefined, maxImageBytes: number): Uint8Array {
  const tooLarge = () => new HttpError(413, `the image is over ${maxImageBytes} bytes`, 'PayloadTooLarge');
  const boundary = multipartBoundary(contentType);
  if (boundary !== null) {
    // Other fields are ignored, as the platform's inference server ignores them; one image, or it would have to guess.
    const files = parseMultipart(body, boundary).filter((p) => p.name === 'file');
    const hint = 'send the image as the one part named "file"';
    if (files.length === 0) throw badRequest('the multipart body has no "file" part', hint, 'file');
    if (files.length > 1) throw badRequest(`the multipart body has ${files.length} "file" parts; one image is taken`, hint, 'file');
    const { data } = files[0]!;
    if (data.length === 0) throw badRequest('the "file" part is empty', hint, 'file');
    if (data.length > maxImageBytes) throw tooLarge();
    return data;
  }
  const text = body
    .toString('latin1')
    .trim()
    .replace(/^data:[^,]*;base64,/, '');
  if (!/^[A-Za-z0-9+/=\s_-]+$/.test(text))
    throw badRequest(
      'the body is not base64 image data',
      'send the image base64-encoded, or as the "file" part of a multipart/form-data body',
    );
  const bytes = Buffer.from(text, 'base64');
  if (bytes.length > maxImageBytes) throw tooLarge();
  return bytes;
}
