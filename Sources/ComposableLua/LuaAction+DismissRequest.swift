import Composable
import LuaKit

// A Lua feature dismisses itself with `composable.dismiss`, which sends the action `dismiss`:
// under a Swift stack or presentation, that action is the request to close it, as it is under
// a Lua one (`composable.stack`, `composable.presents`), so the feature never receives it.
extension LuaValue: DismissRequest {
  /// Whether this action is `dismiss`, as a bare string or as a table's `type`: what
  /// `composable.dismiss` sends to close the feature.
  public var requestsDismissal: Bool {
    switch self {
    case .string: stringValue == "dismiss"
    case let .table(table): table[LuaAction.typeKey].stringValue == "dismiss"
    default: false
    }
  }
}
