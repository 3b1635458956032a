/// The rows a list shows, as identifiers in order.
///
/// Duplicates are kept out: the first occurrence of an identifier wins and the others are
/// listed in `duplicates`, so a bad data set shows as a diagnostic instead of a crash.
public struct ListSnapshot<ID: Hashable & Sendable>: Sendable, Equatable {
    public private(set) var ids: [ID] = []
    private var positions: [ID: Int] = [:]
    /// Identifiers that were appended more than once (each once).
    public private(set) var duplicates: [ID] = []

    public init() {}

    public init(_ ids: some Sequence<ID>) {
        append(ids)
    }

    public mutating func append(_ newIDs: some Sequence<ID>) {
        for id in newIDs {
            if positions[id] != nil {
                if !duplicates.contains(id) { duplicates.append(id) }
                continue
            }
            positions[id] = ids.count
            ids.append(id)
        }
    }

    public var count: Int { ids.count }

    /// The position of `id`, in O(1).
    public func index(of id: ID) -> Int? { positions[id] }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.ids == rhs.ids }
}

/// What changed between two snapshots, keyed by identifier. Computed in O(n).
public struct ListChanges<ID: Hashable & Sendable>: Sendable, Equatable {
    /// Identifiers only in the new snapshot, in its order.
    public var inserted: [ID]
    /// Identifiers only in the old snapshot, in its order.
    public var removed: [ID]
    /// Identifiers in both whose position among the kept identifiers changed.
    public var moved: [ID]

    public var isEmpty: Bool { inserted.isEmpty && removed.isEmpty && moved.isEmpty }

    /// The changes from `old` to `new`.
    public init(from old: ListSnapshot<ID>, to new: ListSnapshot<ID>) {
        inserted = new.ids.filter { old.index(of: $0) == nil }
        removed = old.ids.filter { new.index(of: $0) == nil }
        // Compare the order of the identifiers both share: rank them in each snapshot.
        var oldRank: [ID: Int] = [:]
        oldRank.reserveCapacity(old.count)
        var rank = 0
        for id in old.ids where new.index(of: id) != nil {
            oldRank[id] = rank
            rank += 1
        }
        rank = 0
        var moved: [ID] = []
        for id in new.ids {
            guard let previous = oldRank[id] else { continue }
            if previous != rank { moved.append(id) }
            rank += 1
        }
        self.moved = moved
    }
}
