import LuaKit

/// A Swift action that crosses into Lua on its own: its type and fields are pushed straight
/// onto the stack, their names interned once per VM, with no `LuaValue` and no `Encoder` in
/// between. An action enum that is also `Codable` (as `LuaFeatureCodableReducer` needs, to
/// decode what effects send back) is sent this way instead of being encoded.
///
/// ```swift
/// enum TodosAction: Codable, LuaActionConvertible {
///   case toggle(id: Int)
///
///   var luaType: LuaName { Names.toggle }
///   func writeFields(to action: inout LuaTableWriter) throws(LuaError) {
///     switch self {
///     case let .toggle(id): try action.set(Names.id, id)
///     }
///   }
///   enum Names { static let toggle: LuaName = "toggle", id: LuaName = "id" }
/// }
/// ```
///
/// It must write what its `Codable` form encodes to (`{ type = "toggle", id = 3 }`): a
/// `TestStore` over a generic `Action` encodes it.
public protocol LuaActionConvertible: Sendable {
  /// The action's `type`.
  var luaType: LuaName { get }
  /// The action's other fields; none by default.
  func writeFields(to action: inout LuaTableWriter) throws(LuaError)
}

extension LuaActionConvertible {
  /// Writes no field: the action is its `type` alone.
  public func writeFields(to action: inout LuaTableWriter) throws(LuaError) {}
}

extension LuaAction {
  /// `typeField`, interned.
  static let typeName = LuaName(typeField)
}

/// A typed action as the table it crosses as: its fields, then `type`, last, so that no field
/// can replace it: the action has its shape without a check on the way in. Not generic: a
/// generic wrapper's metadata would be looked up at run time on every send.
struct LuaActionTable: LuaTableConvertible {
  let action: any LuaActionConvertible

  func write(to table: inout LuaTableWriter) throws(LuaError) {
    try action.writeFields(to: &table)
    try table.set(LuaAction.typeName, action.luaType)
  }
}
