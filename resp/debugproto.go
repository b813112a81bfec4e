package resp

// ErrDebugProtocolType is DEBUG PROTOCOL's refusal of a type it does not
// know, as Redis words it.
const ErrDebugProtocolType Error = "ERR Wrong protocol type name. Please use one of the following: " +
	"string|integer|double|bignum|null|array|set|map|attrib|push|verbatim|true|false"

// DebugProtocol appends the sample reply of type name that DEBUG PROTOCOL
// answers, with Redis's values, in the writer's protocol (RESP2 gets each
// type's RESP2 form). It reports false, having written nothing, for a
// name it does not know.
func (w *Writer) DebugProtocol(name []byte) bool {
	r3 := w.RESP3()
	switch {
	case EqualFold(name, "string"):
		w.BulkString("Hello World")
	case EqualFold(name, "integer"):
		w.Int(12345)
	case EqualFold(name, "double"):
		if r3 {
			w.B = append(w.B, ",3.141\r\n"...)
		} else {
			w.BulkString("3.141")
		}
	case EqualFold(name, "bignum"):
		const n = "1234567999999999999999999999999999999"
		if r3 {
			w.B = append(append(append(w.B, '('), n...), '\r', '\n')
		} else {
			w.BulkString(n)
		}
	case EqualFold(name, "null"):
		w.Null()
	case EqualFold(name, "array"), EqualFold(name, "set"):
		if EqualFold(name, "set") {
			w.Set(3)
		} else {
			w.Array(3)
		}
		for j := int64(0); j < 3; j++ {
			w.Int(j)
		}
	case EqualFold(name, "map"):
		w.Map(3)
		for j := int64(0); j < 3; j++ {
			w.Int(j)
			w.debugBool(j == 1)
		}
	case EqualFold(name, "attrib"):
		if r3 {
			w.B = append(w.B, "|1\r\n"...)
			w.BulkString("key-popularity")
			w.Array(2)
			w.BulkString("key:123")
			w.Int(90)
		}
		// An attribute comes before a reply: one follows.
		w.BulkString("Some real reply following the attribute")
	case EqualFold(name, "push"):
		if !r3 {
			w.Err("ERR RESP2 is not supported by this command")
			return true
		}
		w.Push(2)
		w.BulkString("server-cpu-usage")
		w.Int(42)
		w.BulkString("Some real reply following the push reply")
	case EqualFold(name, "true"), EqualFold(name, "false"):
		w.debugBool(EqualFold(name, "true"))
	case EqualFold(name, "verbatim"):
		w.Verbatim("txt", []byte("This is a verbatim\nstring"))
	default:
		return false
	}
	return true
}

// debugBool appends a boolean: #t/#f in RESP3, :1/:0 in RESP2.
func (w *Writer) debugBool(b bool) {
	switch {
	case w.RESP3() && b:
		w.B = append(w.B, "#t\r\n"...)
	case w.RESP3():
		w.B = append(w.B, "#f\r\n"...)
	case b:
		w.Int(1)
	default:
		w.Int(0)
	}
}
