import Composable
import Foundation
import IssueReporting
import LuaKit

/// A store of a Lua test, with its clock and the last place the test used it.
final class LuaTestStore {
  let store: TestStore<LuaValue, LuaValue>
  let clock: ManualClock
  var lastSite: (file: String, line: Int)

  init(
    store: TestStore<LuaValue, LuaValue>, clock: ManualClock, lastSite: (file: String, line: Int)
  ) {
    self.store = store
    self.clock = clock
    self.lastSite = lastSite
  }

  /// What a Swift TestStore checks when it goes away.
  func end() { store.checkAtEnd() }
}
