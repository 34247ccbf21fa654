/**
 * A health script of argocd-cm (`resource.customizations.health.<group_kind>`), run as Argo CD runs it
 * (util/lua/lua.go at v3.5.1, `runLua` and `ExecuteHealthLua`): the object as the global `obj`, the base, table and
 * package libraries and a safe `os` (time and date), the string and math libraries only with `useOpenLibs`; the
 * table it returns read as a health status, one Argo CD does not know read as Unknown. Argo CD runs gopher-lua (Lua
 * 5.1); this runs fengari, Lua 5.3 in JavaScript, synchronously, so a check can call it: what health scripts write
 * reads alike in both. A script is stopped after a bound of instructions, as Argo CD stops one at 1 s, and has no way
 * out of its sandbox: no file loading, no `require` but of `os`.
 */
import { createRequire } from 'node:module';
import { getHeapStatistics } from 'node:v8';
import { outcomeStore, packageVersion } from '../stores/outcome-store.ts';

type Fengari = typeof import('fengari');
let loaded: Fengari | undefined;
/** fengari, loaded on first use (its module tree takes about 75 ms): a run whose scripts are known does without it. */
const fengari = (): Fengari => (loaded ??= createRequire(import.meta.url)('fengari') as Fengari);

/** Argo CD's health status codes (gitops-engine health.HealthStatusCode); any other is Unknown. */
const STATUS_CODES = new Set(['Unknown', 'Progressing', 'Healthy', 'Suspended', 'Degraded', 'Missing']);

/** What a run says when it passed its bound. */
export const SCRIPT_OVERRAN = 'the script did not end';
/** What a run says when the process grew past its memory bound while it ran. */
export const SCRIPT_OVERGREW = 'the script took more memory than a health script needs';
/** How much the process may grow while one script runs (a health script reads one object), and how often that is read. */
const MAX_GROWTH = 64 * 2 ** 20;
const HOOK_EVERY = 8;
/** The memory the process holds in V8's heap and outside it (fengari's strings are byte arrays): under a microsecond to read. */
const heldMemory = (): number => {
  const { used_heap_size: heap, external_memory: external } = getHeapStatistics();
  return heap + external;
};

/** Far beyond what a health script takes (this repository's runs in under a hundred), and a tenth of a second of fengari's work: one still running then is a loop. */
const MAX_INSTRUCTIONS = 5_000_000;

/**
 * What a script returns: a health status (an empty one where it returns nil), with the status it wrote where Argo CD
 * did not know it and said Unknown; or why it returns none, and whether it never loaded.
 */
export type HealthRun = { status: string; message: string; unknownStatus?: string } | { error: string; unloaded?: true };

type State = ReturnType<Fengari['lauxlib']['luaL_newstate']>;

/** A JSON value as a Lua value on the stack (decodeValue: maps and lists as tables, lists from 1). */
function push(L: State, value: unknown): void {
  const { lua, to_luastring } = fengari();
  if (value === null || value === undefined) lua.lua_pushnil(L);
  else if (typeof value === 'boolean') lua.lua_pushboolean(L, value);
  // gopher-lua holds every number as a float64 and prints an integral one without a point ("3"); Lua 5.3 prints a
  // float as "3.0", so a whole number goes in as an integer, which prints as gopher-lua's does.
  else if (typeof value === 'number') {
    // fengari's integers are 32 bits: a larger whole number stays a float, and prints as 5000000000.0 where gopher-lua
    // prints 5000000000.
    if (Number.isInteger(value) && value >= -(2 ** 31) && value < 2 ** 31) lua.lua_pushinteger(L, value);
    else lua.lua_pushnumber(L, value);
  } else if (typeof value === 'string') lua.lua_pushstring(L, to_luastring(value));
  else if (Array.isArray(value)) {
    lua.lua_createtable(L, value.length, 0);
    value.forEach((item, i) => {
      push(L, item);
      lua.lua_rawseti(L, -2, i + 1);
    });
  } else {
    const entries = Object.entries(value as Record<string, unknown>);
    lua.lua_createtable(L, 0, entries.length);
    for (const [key, item] of entries) {
      push(L, item);
      lua.lua_setfield(L, -2, to_luastring(key));
    }
  }
}

/** A field of the table on top of the stack, as text (Lua's tostring of a number too), or undefined. */
function textField(L: State, name: string): string | undefined {
  const { lua, to_jsstring, to_luastring } = fengari();
  lua.lua_getfield(L, -1, to_luastring(name));
  const type = lua.lua_type(L, -1);
  const raw = type === lua.LUA_TSTRING || type === lua.LUA_TNUMBER ? lua.lua_tostring(L, -1) : null;
  const text = raw ? to_jsstring(raw) : undefined;
  lua.lua_pop(L, 1);
  return text;
}

/** Opens one library under its name, as luaL_requiref does, and leaves nothing on the stack. */
function open(L: State, name: string, opener: (L: State) => number): void {
  const { lua, lauxlib, to_luastring } = fengari();
  lauxlib.luaL_requiref(L, to_luastring(name), opener, 1);
  lua.lua_pop(L, 1);
}

/** The longest string `string.rep` may make here: far past what a health script writes, far short of a memory bomb. */
const MAX_REP_BYTES = 16 * 2 ** 20;

/**
 * `string.rep`, refusing a result past MAX_REP_BYTES: one call asks for gigabytes in one instruction, which neither
 * the instruction bound nor the memory check between instructions can stop in time (fengari fills it byte by byte).
 */
function boundRep(L: State): void {
  const { lua, lauxlib, to_luastring } = fengari();
  lua.lua_getglobal(L, to_luastring('string'));
  lua.lua_getfield(L, -1, to_luastring('rep'));
  const original = lua.lua_gettop(L);
  lua.lua_pushvalue(L, original);
  lua.lua_pushcclosure(
    L,
    (state: State) => {
      const piece = lauxlib.luaL_checklstring(state, 1).length;
      const times = lauxlib.luaL_checkinteger(state, 2);
      const sep = lua.lua_isnoneornil(state, 3) ? 0 : lauxlib.luaL_checklstring(state, 3).length;
      if (times > 0 && (piece + sep) * times > MAX_REP_BYTES)
        return lauxlib.luaL_error(state, to_luastring(`string.rep: a result past the ${MAX_REP_BYTES / 2 ** 20} MiB a health script is given`));
      lua.lua_pushvalue(state, lua.lua_upvalueindex(1));
      lua.lua_insert(state, 1);
      lua.lua_call(state, lua.lua_gettop(state) - 1, 1);
      return 1;
    },
    1,
  );
  lua.lua_setfield(L, -3, to_luastring('rep'));
  lua.lua_pop(L, 2);
}

/** The sandbox Argo CD gives a script: its libraries, a safe `os`, and no way to read or load a file. */
function sandbox(L: State, openLibs: boolean): void {
  const { lua, lauxlib, lualib, to_jsstring, to_luastring } = fengari();
  open(L, '_G', lualib.luaopen_base);
  open(L, 'table', lualib.luaopen_table);
  if (openLibs) {
    open(L, 'string', lualib.luaopen_string);
    boundRep(L);
    open(L, 'math', lualib.luaopen_math);
  }
  // OpenSafeOs: time and date only (date without its strftime-free extras is close enough for a health script).
  open(L, 'os', lualib.luaopen_os);
  lua.lua_getglobal(L, to_luastring('os'));
  for (const name of ['execute', 'exit', 'getenv', 'remove', 'rename', 'setlocale', 'tmpname', 'clock', 'difftime']) {
    lua.lua_pushnil(L);
    lua.lua_setfield(L, -2, to_luastring(name));
  }
  lua.lua_pop(L, 1);
  for (const name of ['dofile', 'loadfile']) {
    lua.lua_pushnil(L);
    lua.lua_setglobal(L, to_luastring(name));
  }
  // PreloadModule(os, SafeOsLoader): `require("os")` is the safe os; no other module is found.
  lua.lua_pushjsfunction(L, (state: State) => {
    const name = to_jsstring(lauxlib.luaL_checkstring(state, 1));
    if (name !== 'os') return lauxlib.luaL_error(state, to_luastring(`module '${name}' not found`));
    lua.lua_getglobal(state, to_luastring('os'));
    return 1;
  });
  lua.lua_setglobal(L, to_luastring('require'));
  // What gopher-lua (Lua 5.1) has and Lua 5.3 dropped, as Argo CD's own scripts call it (table.getn above all).
  if (lauxlib.luaL_dostring(L, to_luastring(LUA51_COMPAT)) !== lua.LUA_OK) lua.lua_pop(L, 1);
}

const LUA51_COMPAT = `
table.getn = function(t) return #t end
table.maxn = function(t) local n = 0 for k in pairs(t) do if type(k) == 'number' and k > n then n = k end end return n end
unpack = table.unpack
if math then
  math.pow = function(x, y) return x ^ y end
  math.mod = math.fmod
  math.log10 = function(x) return math.log(x, 10) end
end
`;

/** Runs a health script on `object`: the health status it returns, or why it returns none. */
export function runHealthLua(script: string, object: unknown, openLibs = false): HealthRun {
  const { lua, lauxlib, to_jsstring, to_luastring } = fengari();
  const L = lauxlib.luaL_newstate();
  try {
    sandbox(L, openLibs);
    push(L, object);
    lua.lua_setglobal(L, to_luastring('obj'));
    // Stopped after its bound of instructions, and when the process has grown by more than a health script could
    // need: a script that doubles a string needs few instructions to ask for gigabytes (read every few of them).
    const atStart = heldMemory();
    let steps = 0;
    lua.lua_sethook(
      L,
      (state: State) => {
        steps += HOOK_EVERY;
        if (steps >= MAX_INSTRUCTIONS) return lauxlib.luaL_error(state, to_luastring(SCRIPT_OVERRAN));
        if (heldMemory() - atStart > MAX_GROWTH) return lauxlib.luaL_error(state, to_luastring(SCRIPT_OVERGREW));
        return 0;
      },
      lua.LUA_MASKCOUNT,
      HOOK_EVERY,
    );
    const top = lua.lua_gettop(L);
    const loaded = lauxlib.luaL_loadstring(L, to_luastring(script));
    const ran = loaded === lua.LUA_OK ? lua.lua_pcall(L, 0, lua.LUA_MULTRET, 0) : loaded;
    const error = () => to_jsstring(lua.lua_tostring(L, -1) ?? to_luastring('error'));
    if (loaded !== lua.LUA_OK) return { error: error(), unloaded: true };
    if (ran !== lua.LUA_OK) return { error: error() };
    // ExecuteHealthLua reads the last value the script returns: nil is no status, a table one, anything else an error.
    if (lua.lua_gettop(L) === top || lua.lua_type(L, -1) === lua.LUA_TNIL) return { status: '', message: '' };
    if (lua.lua_type(L, -1) !== lua.LUA_TTABLE)
      return { error: `the script returns a ${to_jsstring(lua.lua_typename(L, lua.lua_type(L, -1)))}, where Argo CD takes a table` };
    const status = textField(L, 'status') ?? '';
    const message = textField(L, 'message') ?? '';
    // isValidHealthStatusCode: a status Argo CD does not know, or none, is Unknown.
    return STATUS_CODES.has(status) ? { status, message } : { status: 'Unknown', message: 'Lua returned an invalid health status', unknownStatus: status };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

/** What each script for Applications was found to do, keyed by fengari's version, the script and its libraries. */
const verdicts = outcomeStore<{ wrong: string }>('application-health', () => packageVersion('fengari'));

/**
 * What a health script for Applications does wrong, run on an Application of each health an Application reports:
 * it must return that health. Undefined where it does.
 */
export function applicationHealthMissed(script: string, openLibs: boolean): string | undefined {
  const inputs = [script, String(openLibs)];
  const known = verdicts.get(inputs);
  if (known) return known.wrong || undefined;
  let wrong = '';
  for (const status of ['Healthy', 'Progressing', 'Degraded', 'Suspended', 'Missing']) {
    const app = { apiVersion: 'argoproj.io/v1alpha1', kind: 'Application', metadata: { name: 'child' }, status: { health: { status } } };
    const run = runHealthLua(script, app, openLibs);
    if ('error' in run) wrong = `fails as Argo CD runs it (${run.error})`;
    else if (run.status !== status) wrong = `returns ${run.status ? JSON.stringify(run.status) : 'no status'} for an Application whose own health is ${status}`;
    if (wrong) break;
  }
  verdicts.set(inputs, { wrong });
  return wrong || undefined;
}
