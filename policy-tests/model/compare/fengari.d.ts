// fengari ships no types; this covers the part of its documented API (Lua 5.3's C API, in JavaScript) health-lua.ts uses.
declare module 'fengari' {
  type LuaString = Uint8Array;
  interface LuaState {
    readonly __lua_state: unique symbol;
  }
  type JsFunction = (L: LuaState) => number;
  export function to_luastring(text: string): LuaString;
  export function to_jsstring(text: LuaString): string;
  export const lua: {
    LUA_OK: number;
    LUA_MULTRET: number;
    LUA_MASKCOUNT: number;
    LUA_TNIL: number;
    LUA_TNUMBER: number;
    LUA_TSTRING: number;
    LUA_TTABLE: number;
    lua_pushnil(L: LuaState): void;
    lua_pushboolean(L: LuaState, b: boolean): void;
    lua_pushnumber(L: LuaState, n: number): void;
    lua_pushinteger(L: LuaState, n: number): void;
    lua_pushstring(L: LuaState, s: LuaString): void;
    lua_pushjsfunction(L: LuaState, f: JsFunction): void;
    lua_createtable(L: LuaState, narr: number, nrec: number): void;
    lua_rawseti(L: LuaState, index: number, i: number): void;
    lua_setfield(L: LuaState, index: number, k: LuaString): void;
    lua_getfield(L: LuaState, index: number, k: LuaString): number;
    lua_setglobal(L: LuaState, name: LuaString): void;
    lua_getglobal(L: LuaState, name: LuaString): number;
    lua_type(L: LuaState, index: number): number;
    lua_typename(L: LuaState, type: number): LuaString;
    lua_tostring(L: LuaState, index: number): LuaString | null;
    lua_pop(L: LuaState, n: number): void;
    lua_gettop(L: LuaState): number;
    lua_pcall(L: LuaState, nargs: number, nresults: number, msgh: number): number;
    lua_sethook(L: LuaState, hook: (L: LuaState) => void, mask: number, count: number): void;
    lua_pushvalue(L: LuaState, index: number): void;
    lua_pushcclosure(L: LuaState, f: JsFunction, n: number): void;
    lua_upvalueindex(i: number): number;
    lua_isnoneornil(L: LuaState, index: number): boolean;
    lua_insert(L: LuaState, index: number): void;
    lua_call(L: LuaState, nargs: number, nresults: number): void;
  };
  export const lauxlib: {
    luaL_newstate(): LuaState;
    luaL_requiref(L: LuaState, name: LuaString, opener: JsFunction, global: number): void;
    luaL_loadstring(L: LuaState, s: LuaString): number;
    luaL_dostring(L: LuaState, s: LuaString): number;
    luaL_checkstring(L: LuaState, arg: number): LuaString;
    luaL_checklstring(L: LuaState, arg: number): LuaString;
    luaL_checkinteger(L: LuaState, arg: number): number;
    luaL_error(L: LuaState, message: LuaString): number;
  };
  export const lualib: {
    luaopen_base: JsFunction;
    luaopen_table: JsFunction;
    luaopen_string: JsFunction;
    luaopen_math: JsFunction;
    luaopen_os: JsFunction;
  };
}
