public import Foundation

/// A named search of the item list, kept in the store so that every process and machine sees
/// it: the query text as a person typed it, the sort, and optionally an owner.
///
/// The query text is stored as typed; the store checks that the search understands it (a
/// view never filters differently from what was typed) and keeps nothing parsed. Apply it
/// with the item list's search. The sort field is kept by name (`sortFieldName`): a view saved by a newer
/// shelf may sort by a field this one does not know, and then `sortField` is nil — show the
/// list in the default order and say so (`SavedView.fallbackSortNote`).
///
/// `version` starts at 1 and grows by one with every save over the view or rename of it.
public struct SavedView: Identifiable, Hashable, Sendable, Codable {
    /// A saved view's typed ID.
    public typealias ID = Identifier<SavedView>

    /// Assigned by the store; kept when the view is saved over or renamed.
    public let id: ID
    /// Unique among views with letter case ignored; trimmed, NFC, 1 to 100 visible characters,
    /// no control characters (see `SavedView.checkedName(_:)`).
    public let name: String
    /// The search text as typed, for the item list's search; may be empty. Saved only when
    /// the search understands all of it (`SavedView.checkedQueryText(_:)`).
    public let queryText: String
    /// The sort field's name as stored: an `ItemQuery.SortField` raw value, or a field of a
    /// newer shelf.
    public let sortFieldName: String
    /// The sort direction.
    public let sortDirection: ItemQuery.SortDirection
    /// Only this user's items, when set. Becomes nil when that user is deleted.
    public let owner: User.ID?
    /// When the view was first saved (millisecond precision).
    public let createdAt: Date
    /// When the view was last saved over or renamed.
    public let updatedAt: Date
    /// Grows by one with every save over the view or rename; see
    /// `SavedViewRepository.save(_:replacingVersion:)`.
    public let version: Int64

    /// A view as stored; to save one, pass a `NewSavedView` to `SavedViewRepository.save`.
    public init(
        id: ID, name: String, queryText: String, sortFieldName: String, sortDirection: ItemQuery.SortDirection,
        owner: User.ID?, createdAt: Date, updatedAt: Date, version: Int64
    ) {
        self.id = id
        self.name = name
        self.queryText = queryText
        self.sortFieldName = sortFieldName
        self.sortDirection = sortDirection
        self.owner = owner
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.version = version
    }

    /// The sort field, or nil when this shelf does not know `sortFieldName` (a view saved by
    /// a newer shelf).
    public var sortField: ItemQuery.SortField? { ItemQuery.SortField(rawValue: sortFieldName) }

    /// The query the view stands for: its text, owner and sort. A sort field this shelf does
    /// not know falls back to the default query's order (newest first); `fallbackSortNote`
    /// then says so.
    public var itemQuery: ItemQuery {
        let fallback = ItemQuery()
        return ItemQuery(
            owner: owner, text: queryText, sortField: sortField ?? fallback.sortField,
            sortDirection: sortField == nil ? fallback.sortDirection : sortDirection)
    }

    /// What to tell a person when the view sorts by a field this shelf does not know, or nil
    /// when it does not.
    public var fallbackSortNote: String? {
        guard sortField == nil else { return nil }
        let known = ItemQuery.SortField.allCases.map(\.rawValue).joined(separator: ", ")
        return "view “\(name)” sorts by “\(sortFieldName)”, which this shelf does not know (it knows \(known)); "
            + "showing newest first — update shelf, or save the view again with another sort"
    }

    /// The longest name a view may have, in visible characters: grapheme clusters, what a
    /// terminal shows as one character ("é" typed as e and a combining accent is one, a flag
    /// is one).
    public static let maximumNameLength = 100

    /// The most Unicode code points a name may hold once NFC-normalized: what the database's
    /// `saved_view_name_valid` check allows (a bound against abuse, ten per visible
    /// character). Only names of characters built of many code points each (emoji joined
    /// with modifiers) can reach it before `maximumNameLength`.
    public static let maximumNameCodePoints = 1_000

    /// `name` trimmed of surrounding white space and NFC-normalized, or a `StoreError`
    /// `.invalidValue` saying why it cannot name a view: empty, longer than
    /// `maximumNameLength` visible characters (or, for characters built of several code
    /// points, than `maximumNameCodePoints` code points), or holding a control,
    /// line-separator or text-direction character (the message names it and its position).
    ///
    /// Every path that saves or renames a view checks its name with this function: the CLI's
    /// `views save` and `views rename`, the browser's save prompt and both backends.
    public static func checkedName(_ name: String) throws(StoreError) -> String {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines).precomposedStringWithCanonicalMapping
        guard !trimmed.isEmpty else {
            throw StoreError(.invalidValue, "a saved view's name must not be empty; type a name")
        }
        for (offset, character) in trimmed.enumerated() {
            guard let scalar = character.unicodeScalars.first(where: Self.isRefused) else { continue }
            let code = "U+" + String(scalar.value, radix: 16, uppercase: true).leftPadded(to: 4)
            throw StoreError(
                .invalidValue,
                "a saved view's name must not hold control characters (\(code) at character \(offset + 1)); "
                    + "remove it")
        }
        let count = trimmed.count
        guard count <= maximumNameLength else {
            throw StoreError(
                .invalidValue,
                "a saved view's name must be at most \(maximumNameLength) characters (this one has \(count)); "
                    + "shorten it")
        }
        let codePoints = trimmed.unicodeScalars.count
        guard codePoints <= maximumNameCodePoints else {
            throw StoreError(
                .invalidValue,
                "a saved view's name must be at most \(maximumNameCodePoints) Unicode code points; this one "
                    + "shows \(count) characters built of \(codePoints) (flags and emoji take several each); "
                    + "shorten it")
        }
        return trimmed
    }

    /// `queryText` if the item list's search understands all of it, or a `StoreError`
    /// `.invalidValue` naming each part it does not, with its column (the problems
    /// `ItemQueryText` reports, the ones the CLI's `--query` refuses). A view whose query
    /// would filter differently from what was typed is never saved, whichever program saves
    /// it.
    public static func checkedQueryText(_ queryText: String) throws(StoreError) -> String {
        let problems = ItemQueryText(queryText).problems
        guard !problems.isEmpty else { return queryText }
        throw StoreError(
            .invalidValue,
            "a saved view's query must be one the search understands: "
                + problems.map(\.description).joined(separator: "; ") + "; correct the query")
    }

    /// The key names are unique by and listed in order of: NFC, case-folded in every script
    /// ("Été" and "ÉTÉ" are one name). Compared byte by byte on every backend.
    package static func nameKey(_ name: String) -> String {
        name.precomposedStringWithCanonicalMapping.folding(options: [.caseInsensitive], locale: nil)
            .precomposedStringWithCanonicalMapping
    }

    /// Control characters (C0, DEL, C1), line and paragraph separators, and the text-direction
    /// controls that can make a name show as something else.
    private static func isRefused(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }
}

/// The fields of a view to save; the store assigns the ID, times and version.
public struct NewSavedView: Hashable, Sendable, Codable {
    /// The name; checked and trimmed by `SavedView.checkedName(_:)` when saved.
    public var name: String
    /// The search text as typed; stored as is once the search understands all of it.
    public var queryText: String
    /// The sort field's name: an `ItemQuery.SortField` raw value, or (for a newer shelf's
    /// field) 1 to 40 lowercase ASCII letters, digits or underscores.
    public var sortFieldName: String
    /// The sort direction.
    public var sortDirection: ItemQuery.SortDirection
    /// Only this user's items, when set; the user must exist.
    public var owner: User.ID?

    /// A view of `queryText` sorted by `sortField` in `sortDirection`, of `owner`'s items
    /// only when set.
    public init(
        name: String, queryText: String, sortField: ItemQuery.SortField = .created,
        sortDirection: ItemQuery.SortDirection = .descending, owner: User.ID? = nil
    ) {
        self.init(
            name: name, queryText: queryText, sortFieldName: sortField.rawValue, sortDirection: sortDirection,
            owner: owner)
    }

    /// A view sorted by a field given by name: for a field this shelf's `ItemQuery` does not
    /// have (one a newer shelf knows).
    public init(
        name: String, queryText: String, sortFieldName: String, sortDirection: ItemQuery.SortDirection,
        owner: User.ID? = nil
    ) {
        self.name = name
        self.queryText = queryText
        self.sortFieldName = sortFieldName
        self.sortDirection = sortDirection
        self.owner = owner
    }

    /// The view of `query`'s text, sort and owner (its status is not part of a view).
    public init(name: String, query: ItemQuery) {
        self.init(
            name: name, queryText: query.text, sortField: query.sortField, sortDirection: query.sortDirection,
            owner: query.owner)
    }

    /// This view with its name checked and trimmed (`SavedView.checkedName(_:)`), its query
    /// checked (`SavedView.checkedQueryText(_:)`) and its sort field name checked, or the
    /// `StoreError` `.invalidValue` saying what is wrong. Both backends call it before writing,
    /// so a refused view writes nothing; the CLI and the browser call it to refuse a view
    /// before they open a transaction, with the same message.
    public func checked() throws(StoreError) -> NewSavedView {
        var copy = self
        copy.name = try SavedView.checkedName(name)
        copy.queryText = try SavedView.checkedQueryText(queryText)
        let field = sortFieldName
        let allowed = field.unicodeScalars.allSatisfy { scalar in
            ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar) || scalar == "_"
        }
        guard !field.isEmpty, field.unicodeScalars.count <= 40, allowed else {
            let known = ItemQuery.SortField.allCases.map(\.rawValue).joined(separator: ", ")
            throw StoreError(
                .invalidValue, "a saved view cannot sort by “\(field)”; sort by one of \(known)")
        }
        return copy
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}

extension SavedView {
    /// The key of a name typed to find a view: trimmed, then `nameKey`.
    package static func lookupKey(_ name: String) -> String {
        nameKey(name.trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
