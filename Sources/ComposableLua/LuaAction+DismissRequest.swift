import Composable
import LuaKit

// A Lua feature dismisses itself with `composable.dismiss`, which sends the action `dismiss`:
// under a Swift stack or presentation, that action is the request to close it, as it is under
// a Lua one (`composable.stack`, `composable.presents`), so the feature never receives it.
extension LuaValue: DismissRequest {
  public var requestsDismissal: Bool {
    switch self {
    case .string: stringValue == "dismiss"
    case let .table(table): table[LuaAction.typeKey].stringValue == "dismiss"
    default: false
    }
  }
}
