import ComposableLua  // the one import: Store, Effect, LuaValue and LuaFeature come with it
import Foundation

let file = Bundle.module.url(forResource: "todos", withExtension: "lua")!
let feature = try LuaFeature(contentsOf: file)
let store = Store(initialState: LuaFeatureHandle(feature: feature)) { dependencies in
  LuaFeatureReducer<LuaFeatureHandle>(feature: feature, dependencies: dependencies)
}
await store.send(["type": "add", "title": "milk"]).finish()
await store.send(["type": "add", "title": "eggs"]).finish()
await store.send(["type": "toggle", "id": 1]).finish()
await store.send("sort").finish()
let todos = try feature.state().todos
print("todos:", todos.tableValue?.sequence.map { "\($0.title.stringValue ?? "?")" } ?? [])
