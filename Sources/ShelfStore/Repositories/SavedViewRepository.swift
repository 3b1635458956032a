/// Stores saved views (`SavedView`): named searches of the item list.
///
/// Names are unique with letter case ignored in every script ("Urgent" and "URGENT" are one
/// view); a name is found by any spelling of its case. Every method is safe to call from any
/// task. Mutations are atomic: when one throws, the store is as it was. Errors are
/// `StoreError`.
public protocol SavedViewRepository: Sendable {
    /// Saves `view` under its name: a new view, or — when a view of that name (letter case
    /// ignored) exists — over it. Saving over a view keeps its ID and creation time, takes the
    /// name's new spelling, replaces its query text, sort and owner, sets `updatedAt` to now
    /// and adds one to its version.
    /// - Parameter view: what to save: the name, query text, sort and owner.
    /// - Parameter replacingVersion: nil to save whatever is stored under the name (the last
    ///   save wins). A version to save over only that version of an existing view: the view
    ///   the person saw when they agreed to replace it.
    /// - Returns: the view as stored.
    /// - Throws: `.invalidValue` (a refused name or sort field, the message says why),
    ///   `.unknownUser` (no such owner), `.conflict` (the stored view is no longer at
    ///   `replacingVersion`), `.notFound` (`replacingVersion` given, and no view has that name).
    @discardableResult
    func save(_ view: NewSavedView, replacingVersion: Int64?) async throws -> SavedView

    /// Renames the view named `name` (letter case ignored) to `newName` (checked as by
    /// `save`), adding one to its version; a change of letter case alone is a rename too.
    /// - Returns: the view as stored.
    /// - Throws: `.notFound` when no view has that name, `.invalidValue` when `newName` is
    ///   refused or names another view.
    @discardableResult
    func rename(_ name: String, to newName: String) async throws -> SavedView

    /// Deletes the view named `name` (letter case ignored).
    /// - Throws: `.notFound` when no view has that name.
    func delete(named name: String) async throws

    /// The view named `name` (letter case ignored, surrounding white space trimmed), or nil.
    func view(named name: String) async throws -> SavedView?

    /// All views ordered by name (case-folded, then as spelled).
    func views() async throws -> [SavedView]
}

extension SavedViewRepository {
    /// Saves `view` under its name, over any view of that name: see
    /// `save(_:replacingVersion:)`.
    @discardableResult
    public func save(_ view: NewSavedView) async throws -> SavedView {
        try await save(view, replacingVersion: nil)
    }
}

extension StoreError {
    /// The error for a view name no view has.
    package static func noSavedView(named name: String) -> StoreError {
        StoreError(.notFound, "no saved view is named “\(name)”; `shelf views list` lists them")
    }

    /// The error for renaming onto a name another view has.
    package static func savedViewNameTaken(_ name: String) -> StoreError {
        StoreError(
            .invalidValue, "a saved view named “\(name)” already exists; choose another name, or delete that view first"
        )
    }

    /// The error for saving over a view that changed since it was read.
    package static func savedViewChanged(_ name: String, expected: Int64, stored: Int64) -> StoreError {
        StoreError(
            .conflict,
            "saved view “\(name)” was changed elsewhere (you saw version \(expected), the store has version \(stored)); "
                + "look at it again, then save")
    }
}
