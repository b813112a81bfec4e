package script

import (
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// gopher-lua raises one text for every call of a value that is not a
// function, and names no variable when a value cannot be indexed; Lua 5.1
// names the value's type and, when the bytecode shows where the value came
// from, the variable: "attempt to call field 'f' (a nil value)", "attempt
// to index local 't' (a nil value)". Scripts and tests match on those
// texts, so the error handlers rebuild them from the frame the error was
// raised in, while that frame is still on the stack: the instructions of
// the line the error names, the registers they use, and the instructions
// that loaded those registers.

// nonFunction is gopher-lua's text for a call of a value that is not a
// function; reIndex (errors.go) matches its text for indexing a value that
// is no table.
const nonFunction = "attempt to call a non-function object"

// nameFailure rewrites msg, an error raised at level 1 of L's stack, when
// it is gopher-lua's failed call or index, into Lua 5.1's text.
func nameFailure(L *lua.LState, msg string) string {
	if i := strings.Index(msg, nonFunction); i >= 0 {
		return msg[:i] + failedOp(L, "call", "nil", isCall, callable) + msg[i+len(nonFunction):]
	}
	if m := reIndex.FindStringSubmatchIndex(msg); m != nil {
		typ := msg[m[2]:m[3]]
		ofType := func(_ *lua.LState, v lua.LValue) bool { return v.Type().String() != typ }
		return msg[:m[0]] + failedOp(L, "index", typ, isIndex, ofType) + msg[m[1]:]
	}
	return msg
}

// isCall returns the register a call calls.
func isCall(inst uint32) (int, bool) {
	switch opcode(inst) {
	case lua.OP_CALL, lua.OP_TAILCALL:
		return argA(inst), true
	}
	return 0, false
}

// isIndex returns the register an instruction indexes.
func isIndex(inst uint32) (int, bool) {
	switch opcode(inst) {
	case lua.OP_GETTABLE, lua.OP_GETTABLEKS, lua.OP_SELF:
		return argB(inst), true
	case lua.OP_SETTABLE, lua.OP_SETTABLEKS:
		return argA(inst), true
	}
	return 0, false
}

// failedOp is Lua 5.1's text for the failed op ("call", "index") of the
// Lua function at level 1: the first instruction of the line it stopped
// at that does op on a register whose value fits the failure (fine
// reports a value that does not), and that the instructions before it
// would load as it is now. typ is the value's type when none is found.
func failedOp(L *lua.LState, op, typ string, does func(uint32) (int, bool), fine func(*lua.LState, lua.LValue) bool) string {
	unnamed := "attempt to " + op + " a " + typ + " value"
	dbg, ok := L.GetStack(1)
	if !ok {
		return unnamed
	}
	f, err := L.GetInfo("lf", dbg, lua.LNil)
	fn, isFn := f.(*lua.LFunction)
	if err != nil || !isFn || fn.IsG || dbg.CurrentLine <= 0 {
		return unnamed
	}
	p := fn.Proto
	for pc, inst := range p.Code {
		reg, does := does(inst)
		if !does || p.DbgSourcePositions[pc] != dbg.CurrentLine {
			continue
		}
		_, v := L.GetLocal(dbg, reg+1)
		if fine(L, v) || !stillLoaded(L, dbg, fn, pc, reg, v) {
			// An instruction that ran before the failed one may have
			// overwritten its register, and one after it holds what it
			// held: neither is what its loading instructions would load
			// now.
			continue
		}
		// The instructions of a line run in the order of their pcs: the
		// first one that fails is the one.
		if kind, name := objectName(fn, pc, reg); kind != "" {
			return "attempt to " + op + " " + kind + " '" + name + "' (a " + v.Type().String() + " value)"
		}
		return "attempt to " + op + " a " + v.Type().String() + " value"
	}
	return unnamed
}

// stillLoaded reports whether register reg of fn holds v as the
// instructions that loaded it before pc would load it now; where that
// cannot be told, it reports true.
func stillLoaded(L *lua.LState, dbg *lua.Debug, fn *lua.LFunction, pc, reg int, v lua.LValue) bool {
	w, k := loadedValue(L, dbg, fn, pc, reg, 0)
	return k == unknown || (k == known && w == v)
}

// How much loadedValue can tell.
type knowledge int

const (
	unknown    knowledge = iota
	known                // the value is the one given
	impossible           // loading it would have failed: it was not loaded
)

// loadedValue recomputes what register reg of fn held at pc from the
// instructions that loaded it: a local's value, a global, a table's field
// (through __index tables), a method, an upvalue, a constant, a move.
func loadedValue(L *lua.LState, dbg *lua.Debug, fn *lua.LFunction, pc, reg, depth int) (lua.LValue, knowledge) {
	p := fn.Proto
	if _, isLocal := localName(p, reg, pc); isLocal {
		_, v := L.GetLocal(dbg, reg+1)
		return v, known
	}
	last := loadedBy(p, pc, reg)
	if last < 0 || depth > 8 {
		return lua.LNil, unknown
	}
	inst := p.Code[last]
	switch opcode(inst) {
	case lua.OP_MOVE, lua.OP_MOVEN:
		return loadedValue(L, dbg, fn, last, argB(inst), depth+1)
	case lua.OP_LOADK:
		if k := argBx(inst); k < len(p.Constants) {
			return p.Constants[k], known
		}
	case lua.OP_GETGLOBAL:
		return lookup(fn.Env, p.Constants[argBx(inst)])
	case lua.OP_GETTABLE, lua.OP_GETTABLEKS, lua.OP_SELF:
		t, k := loadedValue(L, dbg, fn, last, argB(inst), depth+1)
		if k != known {
			return lua.LNil, k
		}
		if opcode(inst) == lua.OP_SELF && reg == argA(inst)+1 {
			return t, known
		}
		if c := argC(inst); c&rkConstant != 0 {
			return lookup(t, p.Constants[c&^rkConstant])
		}
	case lua.OP_GETUPVAL:
		_, v := L.GetUpvalue(fn, argB(inst)+1)
		return v, known
	}
	return lua.LNil, unknown
}

// lookup reads t[key] as indexing would, through tables' __index tables;
// it cannot tell where that would run a function (an __index function, a
// string's methods), and indexing nil, a boolean or a number fails.
func lookup(t, key lua.LValue) (lua.LValue, knowledge) {
	for range 16 {
		switch t.(type) {
		case *lua.LNilType, lua.LBool, lua.LNumber:
			return lua.LNil, impossible
		}
		tbl, isTable := t.(*lua.LTable)
		if !isTable {
			return lua.LNil, unknown
		}
		if v := tbl.RawGet(key); v != lua.LNil {
			return v, known
		}
		mt, hasMeta := tbl.Metatable.(*lua.LTable)
		if !hasMeta {
			return lua.LNil, known
		}
		switch next := mt.RawGetString("__index"); next.(type) {
		case *lua.LTable:
			t = next
		case *lua.LNilType:
			return lua.LNil, known
		default:
			return lua.LNil, unknown
		}
	}
	return lua.LNil, unknown
}

// callable reports whether v is a function or has a __call function.
func callable(L *lua.LState, v lua.LValue) bool {
	return v.Type() == lua.LTFunction || L.GetMetaField(v, "__call").Type() == lua.LTFunction
}

// objectName is how Lua 5.1 names the value in register reg of fn at pc:
// a local's name, or from the instruction that last loaded the register
// (a global, a field, a method or an upvalue; a move from a lower
// register names that one). kind is "" when there is no name to give,
// and when a jump could have reached pc around that instruction.
func objectName(fn *lua.LFunction, pc, reg int) (kind, name string) {
	p := fn.Proto
	if name, ok := localName(p, reg, pc); ok {
		return "local", name
	}
	last := loadedBy(p, pc, reg)
	if last < 0 {
		return "", ""
	}
	inst := p.Code[last]
	switch opcode(inst) {
	case lua.OP_GETGLOBAL:
		return "global", constantString(p, argBx(inst))
	case lua.OP_GETTABLE, lua.OP_GETTABLEKS:
		return "field", constantName(p, argC(inst))
	case lua.OP_SELF:
		if reg == argA(inst) {
			return "method", constantName(p, argC(inst))
		}
	case lua.OP_GETUPVAL:
		if b := argB(inst); b < len(p.DbgUpvalues) {
			return "upvalue", p.DbgUpvalues[b]
		}
		return "upvalue", "?"
	case lua.OP_MOVE, lua.OP_MOVEN:
		if b := argB(inst); b < reg {
			return objectName(fn, pc, b)
		}
	}
	return "", ""
}

// localName is the name of the local variable in register reg at pc, if
// one is there: the reg+1'th of the locals active at pc, in the order they
// were declared. gopher-lua's EndPc is the last pc of the local's scope
// (Lua's is the one after it).
func localName(p *lua.FunctionProto, reg, pc int) (string, bool) {
	n := reg + 1
	for _, l := range p.DbgLocals {
		if l.StartPc > pc {
			break
		}
		if pc <= l.EndPc {
			if n--; n == 0 {
				return l.Name, true
			}
		}
	}
	return "", false
}

// loadedBy returns the pc of the instruction that last wrote register reg
// before pc, or -1 when none did or when control flow leaves it in doubt:
// a jump between it and pc, or a jump from anywhere that lands after it
// and no later than pc.
func loadedBy(p *lua.FunctionProto, pc, reg int) int {
	last := -1
	eachInstruction(p, func(i int, inst uint32) {
		if i < pc && writes(inst, reg) {
			last = i
		}
	})
	if last < 0 {
		return -1
	}
	doubt := false
	eachInstruction(p, func(i int, inst uint32) {
		if target, jumps := jumpTarget(inst, i); jumps {
			doubt = doubt || (i >= last && i < pc) || (target > last && target <= pc)
		}
	})
	if doubt {
		return -1
	}
	return last
}

// eachInstruction calls fn with each instruction of p and its pc, but the
// upvalue descriptions after a CLOSURE, which are not instructions.
func eachInstruction(p *lua.FunctionProto, fn func(pc int, inst uint32)) {
	for i := 0; i < len(p.Code); i++ {
		inst := p.Code[i]
		fn(i, inst)
		if opcode(inst) == lua.OP_CLOSURE {
			if bx := argBx(inst); bx < len(p.FunctionPrototypes) {
				i += int(p.FunctionPrototypes[bx].NumUpvalues)
			}
		}
	}
}

// jumpTarget returns where inst at pc may jump to, and whether it may.
func jumpTarget(inst uint32, pc int) (int, bool) {
	switch opcode(inst) {
	case lua.OP_JMP, lua.OP_FORLOOP, lua.OP_FORPREP:
		return pc + 1 + argSbx(inst), true
	case lua.OP_EQ, lua.OP_LT, lua.OP_LE, lua.OP_TEST, lua.OP_TESTSET, lua.OP_TFORLOOP:
		return pc + 2, true
	case lua.OP_LOADBOOL:
		return pc + 2, argC(inst) != 0
	}
	return 0, false
}

// writes reports whether inst may write register reg.
func writes(inst uint32, reg int) bool {
	a := argA(inst)
	switch opcode(inst) {
	case lua.OP_LOADNIL:
		return a <= reg && reg <= argB(inst)
	case lua.OP_SELF:
		return reg == a || reg == a+1
	case lua.OP_CALL, lua.OP_VARARG, lua.OP_TFORLOOP, lua.OP_FORLOOP, lua.OP_FORPREP:
		return reg >= a
	case lua.OP_SETGLOBAL, lua.OP_SETUPVAL, lua.OP_SETTABLE, lua.OP_SETTABLEKS, lua.OP_SETLIST,
		lua.OP_JMP, lua.OP_EQ, lua.OP_LT, lua.OP_LE, lua.OP_TEST, lua.OP_RETURN, lua.OP_TAILCALL,
		lua.OP_CLOSE, lua.OP_NOP:
		return false
	}
	return reg == a
}

// constantName is the string constant an RK operand names, "?" when it
// names a register or a constant that is no string.
func constantName(p *lua.FunctionProto, rk int) string {
	if rk&rkConstant == 0 {
		return "?"
	}
	return constantString(p, rk&^rkConstant)
}

// constantString is constant k of p when it is a string, else "?".
func constantString(p *lua.FunctionProto, k int) string {
	if k < len(p.Constants) {
		if s, ok := p.Constants[k].(lua.LString); ok {
			return string(s)
		}
	}
	return "?"
}

// gopher-lua's instruction layout (its opcode.go): the opcode in the top 6
// bits, A in the next 8, then C and B of 9 bits each, or Bx of 18; an RK
// operand with its top bit set names a constant.
const rkConstant = 1 << 8

func opcode(inst uint32) int { return int(inst >> 26) }
func argA(inst uint32) int   { return int(inst>>18) & 0xff }
func argB(inst uint32) int   { return int(inst & 0x1ff) }
func argC(inst uint32) int   { return int(inst>>9) & 0x1ff }
func argBx(inst uint32) int  { return int(inst & 0x3ffff) }
func argSbx(inst uint32) int { return argBx(inst) - (1<<18-1)>>1 }
