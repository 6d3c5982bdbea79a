"""Writes small ONNX models without the onnx package: just enough of the protobuf wire format
(onnx.proto3: ModelProto, GraphProto, NodeProto, TensorProto, ValueInfoProto) for the fault
tests to build recognizers that load fine and then fail, or that declare the wrong shape.

Field numbers are those of onnx/onnx.proto3; every message is written with length-delimited
submessages and varints, which every protobuf parser (ONNX Runtime's included) reads.
"""
FLOAT = 1  # TensorProto.DataType
INT64 = 7


def _varint(n):
    n &= (1 << 64) - 1  # negative int64 values are ten-byte two's complement varints
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _key(field, wire_type):
    return _varint((field << 3) | wire_type)


def _int(field, n):
    return _key(field, 0) + _varint(n)


def _bytes(field, data):
    if isinstance(data, str):
        data = data.encode()
    return _key(field, 2) + _varint(len(data)) + data


def _dim(d):
    # TensorShapeProto.Dimension: dim_value = 1, dim_param = 2
    return _int(1, d) if isinstance(d, int) else _bytes(2, d)


def value_info(name, dims, elem_type=FLOAT):
    """ValueInfoProto of a tensor; dims are ints (fixed) or strings (symbolic)."""
    shape = b"".join(_bytes(1, _dim(d)) for d in dims)       # TensorShapeProto.dim = 1
    tensor_type = _int(1, elem_type) + _bytes(2, shape)        # elem_type = 1, shape = 2
    type_proto = _bytes(1, tensor_type)                        # TypeProto.tensor_type = 1
    return _bytes(1, name) + _bytes(2, type_proto)             # name = 1, type = 2


def int64_tensor(name, values):
    """TensorProto holding a 1-D int64 constant."""
    return (_int(1, len(values)) + _int(2, INT64) +            # dims = 1, data_type = 2
            b"".join(_int(7, v) for v in values) +             # int64_data = 7
            _bytes(8, name))                                   # name = 8


def node(op_type, inputs, outputs, name=""):
    return (b"".join(_bytes(1, i) for i in inputs) + b"".join(_bytes(2, o) for o in outputs) +
            _bytes(3, name or op_type) + _bytes(4, op_type))


def model(nodes, inputs, outputs, initializers=(), opset=13, graph_name="g"):
    """Serialized ModelProto (IR version 8, default domain at `opset`)."""
    graph = (b"".join(_bytes(1, n) for n in nodes) + _bytes(2, graph_name) +
             b"".join(_bytes(5, t) for t in initializers) +
             b"".join(_bytes(11, v) for v in inputs) + b"".join(_bytes(12, v) for v in outputs))
    opset_id = _bytes(1, "") + _int(2, opset)
    return (_int(1, 8) + _bytes(2, "onnxocr-load-tests") + _bytes(7, graph) +
            _bytes(8, opset_id))


def failing_recognizer(classes, height=48, output_dims=None):
    """A recognizer that loads like a real one (input x [n,3,height,w], output [n,t,classes],
    or `output_dims` when given) and fails at every run: it reshapes its input to
    [1, -1, classes], which ONNX Runtime refuses unless n x 3 x height x w is a multiple of
    `classes` (for 6,625 classes: w a multiple of 1,325 with n = 5, else never)."""
    return model(
        nodes=[node("Reshape", ["x", "target_shape"], ["y"])],
        inputs=[value_info("x", ["n", 3, height, "w"])],
        outputs=[value_info("y", output_dims or ["n", "t", classes])],
        initializers=[int64_tensor("target_shape", [1, -1, classes])])

