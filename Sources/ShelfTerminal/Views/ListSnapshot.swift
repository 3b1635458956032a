/// The rows a list shows, as identifiers in order.
///
/// Duplicates are kept out: the first occurrence of an identifier wins and the others are
/// listed in `duplicates`, so a bad data set shows as a diagnostic instead of a crash.
public struct ListSnapshot<ID: Hashable & Sendable>: Sendable, Equatable {
    // Inlinable, with storage visible to inlined code, so that building and comparing
    // snapshots is specialised for the caller's identifier type: unspecialised generic
    // hashing made 100,000 identifiers take 40 ms instead of a few.
    @usableFromInline var storedIDs: [ID] = []
    @usableFromInline var positions: [ID: Int] = [:]
    @usableFromInline var storedDuplicates: [ID] = []

    /// The identifiers, in order, without duplicates.
    @inlinable public var ids: [ID] { storedIDs }
    /// Identifiers that were appended more than once (each once).
    @inlinable public var duplicates: [ID] { storedDuplicates }

    /// An empty snapshot.
    @inlinable public init() {}

    /// A snapshot of `ids` in order; an identifier seen again is left out and listed in
    /// `duplicates`. O(n).
    @inlinable public init(_ ids: some Sequence<ID>) {
        append(ids)
    }

    /// Appends `newIDs` in order, skipping identifiers already present (they are listed once in
    /// `duplicates`). Amortised O(1) per identifier.
    @inlinable public mutating func append(_ newIDs: some Sequence<ID>) {
        let expected = storedIDs.count + newIDs.underestimatedCount
        storedIDs.reserveCapacity(expected)
        positions.reserveCapacity(expected)
        for id in newIDs {
            if positions[id] != nil {
                if !storedDuplicates.contains(id) { storedDuplicates.append(id) }
                continue
            }
            positions[id] = storedIDs.count
            storedIDs.append(id)
        }
    }

    /// The number of distinct identifiers.
    @inlinable public var count: Int { storedIDs.count }

    /// The position of `id`, in O(1).
    @inlinable public func index(of id: ID) -> Int? { positions[id] }

    /// Two snapshots are equal when they hold the same identifiers in the same order;
    /// `duplicates` is not compared.
    @inlinable public static func == (lhs: Self, rhs: Self) -> Bool { lhs.storedIDs == rhs.storedIDs }
}

/// What changed between two snapshots, keyed by identifier. Computed in O(n).
public struct ListChanges<ID: Hashable & Sendable>: Sendable, Equatable {
    /// Identifiers only in the new snapshot, in its order.
    public var inserted: [ID]
    /// Identifiers only in the old snapshot, in its order.
    public var removed: [ID]
    /// Identifiers in both whose position among the kept identifiers changed.
    public var moved: [ID]

    /// True when nothing was inserted, removed or moved.
    @inlinable public var isEmpty: Bool { inserted.isEmpty && removed.isEmpty && moved.isEmpty }

    /// The changes from `old` to `new`: one lookup per identifier of `old`, then array work.
    @inlinable public init(from old: ListSnapshot<ID>, to new: ListSnapshot<ID>) {
        // For each position in `new`, the rank of that identifier among the identifiers
        // both snapshots share, in `old`'s order; -1 when it is not in `old`.
        var oldRank = [Int](repeating: -1, count: new.count)
        var removed: [ID] = []
        var rank = 0
        for id in old.ids {
            if let position = new.index(of: id) {
                oldRank[position] = rank
                rank += 1
            } else {
                removed.append(id)
            }
        }
        var inserted: [ID] = []
        var moved: [ID] = []
        rank = 0
        for (position, id) in new.ids.enumerated() {
            let previous = oldRank[position]
            if previous < 0 {
                inserted.append(id)
                continue
            }
            if previous != rank { moved.append(id) }
            rank += 1
        }
        self.inserted = inserted
        self.removed = removed
        self.moved = moved
    }
}
