"""A minimal reader of the TFLite flatbuffer (schema.fbs): the tables and fields the converter needs.

No TFLite or flatbuffers package is available where the models are converted, so the format is read
here directly: every offset is bounds-checked, and a file that is not a whole TFLite model raises
TFLiteFormatError with a message a user can act on.
"""

import struct
from dataclasses import dataclass

import numpy as np

# BuiltinOperator names (schema.fbs) by code, 0 to 117; later codes are reported by number.
BUILTIN_NAMES = dict(enumerate("""
ADD AVERAGE_POOL_2D CONCATENATION CONV_2D DEPTHWISE_CONV_2D DEPTH_TO_SPACE DEQUANTIZE EMBEDDING_LOOKUP
FLOOR FULLY_CONNECTED HASHTABLE_LOOKUP L2_NORMALIZATION L2_POOL_2D LOCAL_RESPONSE_NORMALIZATION LOGISTIC
LSH_PROJECTION LSTM MAX_POOL_2D MUL RELU RELU_N1_TO_1 RELU6 RESHAPE RESIZE_BILINEAR RNN SOFTMAX SPACE_TO_DEPTH
SVDF TANH CONCAT_EMBEDDINGS SKIP_GRAM CALL CUSTOM EMBEDDING_LOOKUP_SPARSE PAD UNIDIRECTIONAL_SEQUENCE_RNN GATHER
BATCH_TO_SPACE_ND SPACE_TO_BATCH_ND TRANSPOSE MEAN SUB DIV SQUEEZE UNIDIRECTIONAL_SEQUENCE_LSTM STRIDED_SLICE
BIDIRECTIONAL_SEQUENCE_RNN EXP TOPK_V2 SPLIT LOG_SOFTMAX DELEGATE BIDIRECTIONAL_SEQUENCE_LSTM CAST PRELU MAXIMUM
ARG_MAX MINIMUM LESS NEG PADV2 GREATER GREATER_EQUAL LESS_EQUAL SELECT SLICE SIN TRANSPOSE_CONV SPARSE_TO_DENSE
TILE EXPAND_DIMS EQUAL NOT_EQUAL LOG SUM SQRT RSQRT SHAPE POW ARG_MIN FAKE_QUANT REDUCE_PROD REDUCE_MAX PACK
LOGICAL_OR ONE_HOT LOGICAL_AND LOGICAL_NOT UNPACK REDUCE_MIN FLOOR_DIV REDUCE_ANY SQUARE ZEROS_LIKE FILL FLOOR_MOD
RANGE RESIZE_NEAREST_NEIGHBOR LEAKY_RELU SQUARED_DIFFERENCE MIRROR_PAD ABS SPLIT_V UNIQUE CEIL REVERSE_V2 ADD_N
GATHER_ND COS WHERE RANK ELU REVERSE_SEQUENCE MATRIX_DIAG QUANTIZE MATRIX_SET_DIAG ROUND HARD_SWISH
""".split()))

# TensorType enum (schema.fbs) → numpy dtype, for the types a float model's constants use.
TENSOR_TYPES = {0: np.float32, 1: np.float16, 2: np.int32, 3: np.uint8, 4: np.int64, 9: np.int8}


class TFLiteFormatError(ValueError):
    """The bytes are not a readable TFLite model (wrong identifier, truncated, or inconsistent)."""


@dataclass
class Tensor:
    index: int
    name: str
    shape: tuple
    dtype: type
    data: "np.ndarray | None"  # the constant's value, None for activations


@dataclass
class Operator:
    op: str                    # builtin name, or the custom code of a CUSTOM op
    inputs: list               # tensor indices, -1 for an omitted optional input
    outputs: list
    options: "Table | None"    # builtin options table; read per op, as its layout depends on the op
    custom_options: bytes


@dataclass
class Model:
    tensors: list
    operators: list
    inputs: list
    outputs: list


class Table:
    """One flatbuffer table: typed access to its fields by slot number, with defaults."""

    def __init__(self, buf: "Buffer", pos: int):
        self.buf, self.pos = buf, pos
        vtable = pos - buf.i32(pos)
        self.vt, self.vt_len = vtable, buf.u16(vtable)

    def _field(self, slot: int):
        entry = 4 + 2 * slot
        if entry + 2 > self.vt_len:
            return None
        off = self.buf.u16(self.vt + entry)
        return self.pos + off if off else None

    def scalar(self, slot: int, fmt: str, default=0):
        at = self._field(slot)
        return default if at is None else self.buf.unpack(fmt, at)

    def table(self, slot: int):
        at = self._field(slot)
        return None if at is None else Table(self.buf, at + self.buf.u32(at))

    def _vector(self, slot: int):
        at = self._field(slot)
        if at is None:
            return None, 0
        start = at + self.buf.u32(at)
        return start + 4, self.buf.u32(start)

    def tables(self, slot: int):
        start, n = self._vector(slot)
        return [Table(self.buf, start + 4 * k + self.buf.u32(start + 4 * k)) for k in range(n)]

    def ints(self, slot: int):
        start, n = self._vector(slot)
        return [self.buf.unpack("<i", start + 4 * k) for k in range(n)]

    def bytes(self, slot: int) -> bytes:
        start, n = self._vector(slot)
        return b"" if start is None else self.buf.slice(start, n)

    def string(self, slot: int) -> str:
        return self.bytes(slot).decode("utf-8", errors="replace")


class Buffer:
    def __init__(self, data: bytes):
        self.data = data

    def unpack(self, fmt: str, at: int):
        size = struct.calcsize(fmt)
        if at < 0 or at + size > len(self.data):
            raise TFLiteFormatError(f"truncated or corrupt TFLite file: a field at byte {at} lies past its end "
                                    f"({len(self.data)} bytes)")
        return struct.unpack_from(fmt, self.data, at)[0]

    def u16(self, at): return self.unpack("<H", at)
    def u32(self, at): return self.unpack("<I", at)
    def i32(self, at): return self.unpack("<i", at)

    def slice(self, at: int, n: int) -> bytes:
        if at < 0 or at + n > len(self.data):
            raise TFLiteFormatError(f"truncated or corrupt TFLite file: {n} bytes at byte {at} lie past its end "
                                    f"({len(self.data)} bytes)")
        return self.data[at:at + n]


def read_model(data: bytes) -> Model:
    """Parses the first subgraph of a TFLite model into tensors (constants decoded) and operators."""
    if len(data) < 8 or data[4:8] != b"TFL3":
        raise TFLiteFormatError("not a TFLite model: the file identifier at bytes 4-8 is not 'TFL3'")
    buf = Buffer(data)
    model = Table(buf, buf.u32(0))
    # Model: 1 operator_codes, 2 subgraphs, 4 buffers.
    codes = []
    for code in model.tables(1):
        # OperatorCode: 0 deprecated_builtin_code (byte), 1 custom_code, 3 builtin_code (int).
        builtin = max(code.scalar(3, "<i"), code.scalar(0, "<b"))
        codes.append(code.string(1) if builtin == 32 else BUILTIN_NAMES.get(builtin, f"builtin operator {builtin}"))
    subgraphs = model.tables(2)
    if not subgraphs:
        raise TFLiteFormatError("TFLite model has no subgraph")
    buffers = [b.bytes(0) for b in model.tables(4)]
    graph = subgraphs[0]

    tensors = []
    for index, t in enumerate(graph.tables(0)):
        # Tensor: 0 shape, 1 type, 2 buffer, 3 name.
        type_code = t.scalar(1, "<b")
        if type_code not in TENSOR_TYPES:
            raise TFLiteFormatError(f"tensor {t.string(3)!r} has TensorType {type_code}, which the converter does not read")
        dtype, shape = TENSOR_TYPES[type_code], tuple(t.ints(0))
        buffer_index = t.scalar(2, "<I")
        if buffer_index >= len(buffers):
            raise TFLiteFormatError(f"tensor {t.string(3)!r} names buffer {buffer_index} of {len(buffers)}")
        raw = buffers[buffer_index]
        data = None
        if raw:
            count = int(np.prod(shape)) if shape else 1
            if len(raw) != count * np.dtype(dtype).itemsize:
                raise TFLiteFormatError(f"tensor {t.string(3)!r}: buffer of {len(raw)} bytes for shape {list(shape)}")
            data = np.frombuffer(raw, dtype=np.dtype(dtype).newbyteorder("<")).reshape(shape)
        tensors.append(Tensor(index, t.string(3), shape, dtype, data))

    operators = []
    for op in graph.tables(3):
        # Operator: 0 opcode_index, 1 inputs, 2 outputs, 4 builtin_options, 5 custom_options.
        opcode = op.scalar(0, "<I")
        if opcode >= len(codes):
            raise TFLiteFormatError(f"an operator names opcode {opcode} of {len(codes)}")
        ins, outs = op.ints(1), op.ints(2)
        for i in ins + outs:
            if i >= len(tensors):
                raise TFLiteFormatError(f"operator {codes[opcode]} names tensor {i} of {len(tensors)}")
        operators.append(Operator(codes[opcode], ins, outs, op.table(4), op.bytes(5)))
    return Model(tensors, operators, graph.ints(1), graph.ints(2))
