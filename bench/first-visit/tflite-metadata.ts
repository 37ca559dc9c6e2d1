// The selfie .tflite of @mediapipe/selfie_segmentation with the input metadata that MediaPipe tasks'
// ImageSegmenter requires of a float model (NormalizationOptions: "Input tensor has type float32: it
// requires specifying NormalizationOptions metadata"), as Google's own selfie_segmenter.tflite for tasks
// carries it: RGB in, (x − 0) ÷ 255, which is how MediaPipe's legacy graph fed this model. The network
// and its weights are left as they are: the old file's bytes are kept whole at the end of the new one, and
// a new root table before them points at its parts, with the TFLITE_METADATA buffer and entry added.
import { Builder, ByteBuffer, type Offset } from 'flatbuffers';

// Field slots (a field's vtable entry is at 4 + 2 × slot), from tflite's schema.fbs and metadata_schema.fbs.
const MODEL = { version: 0, operatorCodes: 1, subgraphs: 2, description: 3, buffers: 4, metadataBuffer: 5, metadata: 6, signatureDefs: 7 };
const BUFFER = { data: 0, offset: 1 };
const METADATA = { name: 0, buffer: 1 };
const CONTENT_IMAGE_PROPERTIES = 2;
const PROCESS_UNIT_NORMALIZATION = 1;
const COLOR_RGB = 1;
const COLOR_GRAYSCALE = 2;
const ALIGN = 16;

/** The metadata flatbuffer (file identifier M001): one input image, RGB, normalised by mean and std; one mask out. */
function imageSegmenterMetadata(mean: number, std: number): Uint8Array {
  const b = new Builder(512);
  const floats = (values: number[]) => {
    b.startVector(4, values.length, 4);
    for (let i = values.length - 1; i >= 0; i--) b.addFloat32(values[i]!);
    return b.endVector();
  };
  const offsets = (values: Offset[]) => {
    b.startVector(4, values.length, 4);
    for (let i = values.length - 1; i >= 0; i--) b.addOffset(values[i]!);
    return b.endVector();
  };
  const imageContent = (colorSpace: number) => {
    b.startObject(2);
    b.addFieldInt8(0, colorSpace, 0);
    const properties = b.endObject();
    b.startObject(3);
    b.addFieldInt8(0, CONTENT_IMAGE_PROPERTIES, 0);
    b.addFieldOffset(1, properties, 0);
    return b.endObject();
  };
  const [meanVector, stdVector] = [floats([mean]), floats([std])];
  b.startObject(2);
  b.addFieldOffset(0, meanVector, 0);
  b.addFieldOffset(1, stdVector, 0);
  const normalization = b.endObject();
  b.startObject(2);
  b.addFieldInt8(0, PROCESS_UNIT_NORMALIZATION, 0);
  b.addFieldOffset(1, normalization, 0);
  const units = offsets([b.endObject()]);
  const tensor = (name: string, content: Offset, processUnits?: Offset) => {
    const nameString = b.createString(name);
    b.startObject(7);
    b.addFieldOffset(0, nameString, 0);
    b.addFieldOffset(3, content, 0);
    if (processUnits) b.addFieldOffset(4, processUnits, 0);
    return b.endObject();
  };
  const input = offsets([tensor('image', imageContent(COLOR_RGB), units)]);
  const output = offsets([tensor('segmentation_mask', imageContent(COLOR_GRAYSCALE))]);
  b.startObject(4);
  b.addFieldOffset(2, input, 0);
  b.addFieldOffset(3, output, 0);
  const subgraphs = offsets([b.endObject()]);
  const [name, parser] = [b.createString('selfie_segmentation'), b.createString('1.0.0')];
  b.startObject(8);
  b.addFieldOffset(0, name, 0);
  b.addFieldOffset(3, subgraphs, 0);
  b.addFieldOffset(7, parser, 0);
  b.finish(b.endObject(), 'M001');
  return b.asUint8Array();
}

/** `tflite` with ImageSegmenter's metadata added (see the module comment); throws where it has some already. */
export function withImageSegmenterMetadata(tflite: Uint8Array, mean = 0, std = 255): Uint8Array {
  // The old file, padded to the alignment its buffers keep, lies at the very end of the new one: an
  // object at old position p is then `length − p` from the end, which is how Builder counts offsets.
  const length = Math.ceil(tflite.length / ALIGN) * ALIGN;
  const old = new ByteBuffer(new Uint8Array(length));
  old.bytes().set(tflite);
  const at = (position: number): Offset => length - position;
  const root = old.readUint32(0);
  const field = (table: number, slot: number) => old.__offset(table, 4 + 2 * slot);
  const vector = (table: number, slot: number): number[] => {
    const o = field(table, slot);
    if (!o) return [];
    const start = old.__vector(table + o);
    return Array.from({ length: old.__vector_len(table + o) }, (_, i) => old.__indirect(start + 4 * i));
  };
  const buffers = vector(root, MODEL.buffers);
  if (buffers.some((t) => field(t, BUFFER.offset))) throw new Error('this .tflite keeps its buffers outside the flatbuffer');
  const entries = vector(root, MODEL.metadata);
  if (entries.some((t) => old.__string(t + field(t, METADATA.name)) === 'TFLITE_METADATA'))
    throw new Error('this .tflite has metadata already');

  const b = new Builder(length + 4096);
  b.prep(ALIGN, length);
  // Builder has no call that places bytes as they are: they go where its next write would.
  const raw = b as unknown as { space: number; bb: ByteBuffer };
  raw.space -= length;
  raw.bb.bytes().set(old.bytes(), raw.space);

  const metadata = imageSegmenterMetadata(mean, std);
  b.startVector(1, metadata.length, ALIGN);
  for (let i = metadata.length - 1; i >= 0; i--) b.addInt8(metadata[i]!);
  const data = b.endVector();
  b.startObject(3);
  b.addFieldOffset(BUFFER.data, data, 0);
  const newBuffer = b.endObject();
  const name = b.createString('TFLITE_METADATA');
  b.startObject(2);
  b.addFieldOffset(METADATA.name, name, 0);
  b.addFieldInt32(METADATA.buffer, buffers.length, 0);
  const newEntry = b.endObject();
  const offsets = (values: Offset[]) => {
    b.startVector(4, values.length, 4);
    for (let i = values.length - 1; i >= 0; i--) b.addOffset(values[i]!);
    return b.endVector();
  };
  const buffersVector = offsets([...buffers.map(at), newBuffer]);
  const metadataVector = offsets([...entries.map(at), newEntry]);
  const kept = (slot: number) => (field(root, slot) ? at(old.__indirect(root + field(root, slot))) : 0);
  b.startObject(8);
  if (field(root, MODEL.version)) b.addFieldInt32(MODEL.version, old.readUint32(root + field(root, MODEL.version)), 0);
  for (const slot of [MODEL.operatorCodes, MODEL.subgraphs, MODEL.description, MODEL.metadataBuffer, MODEL.signatureDefs])
    if (kept(slot)) b.addFieldOffset(slot, kept(slot), 0);
  b.addFieldOffset(MODEL.buffers, buffersVector, 0);
  b.addFieldOffset(MODEL.metadata, metadataVector, 0);
  b.finish(b.endObject(), 'TFL3');
  return b.asUint8Array();
}
