internal import Foundation

/// How an import treats rows that already exist.
public enum ImportMode: String, Sendable, CaseIterable {
    /// Every row is new; an existing item ID or user email is an error.
    case insert
    /// Rows that exist (items by ID, users by email) are updated, the others inserted.
    case upsert
    /// Like `upsert`, and rows of the table that are not in the input are deleted, so the
    /// table ends up holding exactly the input. Deleting a user deletes their items.
    case replace
}
