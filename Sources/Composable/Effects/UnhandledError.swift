import IssueReporting

/// An error thrown by an `Effect.run` without a catch handler: reported, never a crash.
func reportUnhandledEffectError(
  _ error: any Error, fileID: StaticString, filePath: StaticString, line: UInt, column: UInt
) {
  reportIssue(
    """
    An "Effect.run" returned from "\(fileID):\(line)" threw an unhandled error.

        \(error)

    All errors thrown by "Effect.run" should be handled. To fix, catch the error in the \
    operation, or pass a "catch" handler that turns it into an action.
    """,
    fileID: fileID, filePath: filePath, line: line, column: column
  )
}
