import Foundation

@testable import LuaKit

struct Todo: Codable, Equatable {
  var id: Int
  var title: String
  var done: Bool
  var tags: [String]
}

struct TodosState: Codable, Equatable {
  var todos: [Todo]
  var filter: String?
}

enum ChildAction: Codable, Equatable, Sendable {
  case tapped
}

enum CounterAction: Codable, Equatable, Sendable {
  case increment
  case add(amount: Int)
  case setText(String)
  case move(Int, Int)
  case child(ChildAction)
  case rename(id: Int, String)
}

/// Encodes `value` into a fresh VM, then reads it back as a snapshot and as `Value`.
func throughLua<Value: Codable>(
  _ value: Value, vm: LuaVM? = nil
) throws -> (snapshot: LuaValue, decoded: Value) {
  let vm = try vm ?? LuaVM()
  let reference = try LuaEncoder().encode(value, in: vm, rootName: "state")
  let snapshot = try vm.value(of: reference)
  let decoded = try LuaDecoder().decode(Value.self, from: reference, in: vm, rootName: "state")
  return (snapshot, decoded)
}

/// Runs Lua source that returns one value, and decodes it as `Value`.
func decodeLua<Value: Decodable>(
  _ type: Value.Type, _ source: String, rootName: String = "state"
) throws -> Value {
  let vm = try LuaVM()
  let function = try vm.load(source, chunkName: "fixture.lua")
  return try vm.call(function, arguments: [], returning: type, resultName: rootName)
}

/// The message of the `LuaError` that `body` throws, or nil.
func conversionError(_ body: () throws -> Void) -> String? {
  do {
    try body()
    return nil
  } catch {
    return (error as? LuaError)?.description
  }
}
