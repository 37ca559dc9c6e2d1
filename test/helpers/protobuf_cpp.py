"""Protobuf's C++ reader (onnxruntime's), as a differential oracle for edgeseg's ONNX reader.

Reads, on stdin, a FileDescriptorSet (a length-prefixed first message) and then length-prefixed models;
answers each with one byte (1: parsed, 0: refused) and, when parsed, the model as the C++ library writes it
again: deterministic, unknown fields dropped. Run by test/helpers/protobuf-cpp.ts with Debian's python3-protobuf,
whose implementation must be the C++ one (checked below).
"""

import struct
import sys

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from google.protobuf.internal import api_implementation

if api_implementation.Type() not in ("cpp", "upb"):
    sys.exit(f"python3-protobuf runs its {api_implementation.Type()} implementation, not the C++ reader")


def read_exact(n: int) -> bytes:
    data = sys.stdin.buffer.read(n)
    if len(data) != n:
        raise EOFError
    return data


def read_message() -> bytes:
    (n,) = struct.unpack("<I", read_exact(4))
    return read_exact(n)


pool = descriptor_pool.DescriptorPool()
for f in descriptor_pb2.FileDescriptorSet.FromString(read_message()).file:
    pool.Add(f)
descriptor = pool.FindMessageTypeByName("onnx.ModelProto")
if hasattr(message_factory, "GetMessageClass"):
    Model = message_factory.GetMessageClass(descriptor)
else:
    Model = message_factory.MessageFactory(pool).GetPrototype(descriptor)

out = sys.stdout.buffer
while True:
    try:
        data = read_message()
    except EOFError:
        break
    model = Model()
    try:
        model.ParseFromString(data)
    except Exception:  # noqa: BLE001 - any refusal of the reader is the answer
        out.write(b"\0")
    else:
        model.DiscardUnknownFields()
        written = model.SerializeToString(deterministic=True)
        out.write(b"\1" + struct.pack("<I", len(written)) + written)
    out.flush()
