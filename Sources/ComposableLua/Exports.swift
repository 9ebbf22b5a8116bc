// `import ComposableLua` is all an app needs: the runtime (Store, Reducer, Effect, TestStore,
// navigation: Composable) and the Lua values a feature's state and actions are (LuaValue,
// LuaTable: LuaKit) come with it, as TCA's one import brings what its users reach for.
@_exported import Composable
@_exported import LuaKit
