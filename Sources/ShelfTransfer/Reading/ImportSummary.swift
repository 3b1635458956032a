internal import ShelfStore

/// What an import did.
public struct ImportSummary: Sendable {
    /// The input's format, as given or detected.
    public var format: TransferFormat
    /// Records read.
    public var rows = 0
    /// Rows added.
    public var inserted = 0
    /// Existing rows changed (upsert and replace).
    public var updated = 0
    /// Existing rows the input matched exactly (upsert and replace).
    public var unchanged = 0
    /// Rows deleted because the input lacked them (replace).
    public var deleted = 0
    /// Items deleted with the users a `replace` of users deleted (not in `deleted`).
    public var itemsDeletedWithUsers = 0
    /// In a `replace`: the skipped row that names something that cannot be read (an ID that
    /// is no number, a user without a readable ID or email), because of which nothing was
    /// deleted; nil when the deletions were made.
    public var deletionsWithheldBy: TransferError?
    /// Rows refused (`skipInvalid` or `dryRun`).
    public var skipped = 0
    /// Why rows were refused, in input order; at most `problemLimit` are kept.
    public var problems: [TransferError] = []
    /// True when nothing was written (`dryRun`).
    public var dryRun = false
    /// From opening the input to the commit.
    public var duration: Duration = .zero

    /// How many problems a summary keeps; `skipped` counts them all.
    public static let problemLimit = 1000
}

/// What a `replace` of users is about to delete, for `ImportOptions.confirmDeletions`.
public struct ReplaceDeletions: Sendable, Equatable {
    /// The users the input lacks.
    public var users: Int
    /// Their items, deleted with them.
    public var items: Int

    public init(users: Int, items: Int) {
        self.users = users
        self.items = items
    }
}
