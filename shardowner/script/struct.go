package script

import lua "github.com/yuin/gopher-lua"

func (e *Engine) openStruct() *lua.LTable { return e.L.CreateTable(0, 3) }
