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
    /// In a `replace`: what it deletes (or, in a dry run, would delete), with the owners of
    /// the items, as counted before the rows were written; nil in other modes, and when a
    /// skipped row withheld the deletions.
    public var deletions: ReplaceDeletions?
    /// True when nothing was written (`dryRun`).
    public var dryRun = false
    /// From opening the input to the commit.
    public var duration: Duration = .zero

    /// How many problems a summary keeps; `skipped` counts them all.
    public static let problemLimit = 1000
}

/// What a `replace` is about to delete, for `ImportOptions.confirmDeletions`.
public struct ReplaceDeletions: Sendable, Equatable {
    /// The users the input lacks (a `replace` of users; 0 for items).
    public var users: Int
    /// The items deleted: those the input lacks (items), or those of the users it lacks.
    public var items: Int
    /// The owners of those items, most items first; at most a few (`ownerCount` counts all).
    public var owners: [Owner]
    /// How many users own the items deleted.
    public var ownerCount: Int
    /// A `replace` of users: the saved views owned by a user it deletes, which then show
    /// everyone's items (their owner is cleared), in name order.
    public var widenedViews: [WidenedView] = []

    /// An owner, by email, and how many of their items are deleted.
    public struct Owner: Sendable, Equatable {
        public var email: String
        public var items: Int

        public init(email: String, items: Int) {
            self.email = email
            self.items = items
        }
    }

    /// A saved view, by name, and the email of the user whose items it shows.
    public struct WidenedView: Sendable, Equatable {
        public var name: String
        public var owner: String

        public init(name: String, owner: String) {
            self.name = name
            self.owner = owner
        }
    }

    public init(
        users: Int, items: Int, owners: [Owner] = [], ownerCount: Int = 0, widenedViews: [WidenedView] = []
    ) {
        self.users = users
        self.items = items
        self.owners = owners
        self.ownerCount = ownerCount
        self.widenedViews = widenedViews
    }
}
