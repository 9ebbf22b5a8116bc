import CLua

extension LuaVM {
  /// The release of the Lua library this was built with: `"5.4.4"`.
  public static var luaRelease: String {
    "\(LUA_VERSION_MAJOR).\(LUA_VERSION_MINOR).\(LUA_VERSION_RELEASE)"
  }
}
