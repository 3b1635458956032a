internal import Foundation

/// Where a store lives, as a person writes it in `--db` or `SHELF_DB`.
///
/// `postgres://…` and `postgresql://…` name a PostgreSQL database (open it with ShelfPostgres's
/// `Store.open(postgres:)`); `sqlite:PATH` and anything else name a SQLite file.
public enum StoreLocation: Hashable, Sendable, CustomStringConvertible {
    /// A SQLite database file.
    case sqlite(path: String)
    /// A PostgreSQL database, as a `postgres://user:password@host:port/database` URL.
    case postgres(url: String)

    /// The location `text` names: a `postgres://` or `postgresql://` URL, `sqlite:PATH`, or a
    /// file path.
    /// - Throws: `StoreError` (`.invalidValue`) for an empty location, an empty `sqlite:`, and
    ///   a mistyped PostgreSQL URL (`postgres:` or `postgresql:` without `//`), which would
    ///   otherwise become a file path with the password in a folder name.
    public init(parsing text: String) throws {
        let lowered = text.lowercased()
        if text.isEmpty {
            throw StoreError(.invalidValue, "the database location is empty; give a file path or a postgres:// URL")
        }
        if lowered.hasPrefix("postgres://") || lowered.hasPrefix("postgresql://") {
            self = .postgres(url: text)
        } else if lowered.hasPrefix("postgres:") || lowered.hasPrefix("postgresql:") {
            // Not echoed: where the password is in a mistyped URL cannot be told.
            throw StoreError(
                .invalidValue,
                "the database location starts with postgres: but not postgres://; write "
                    + "postgres://USER:PASSWORD@HOST:PORT/DATABASE (for a file whose name starts with postgres:, "
                    + "write sqlite:./NAME)")
        } else if lowered.hasPrefix("sqlite:") {
            let path = String(text.dropFirst("sqlite:".count))
            guard !path.isEmpty else {
                throw StoreError(.invalidValue, "sqlite: names no file; write sqlite:PATH")
            }
            self = .sqlite(path: path)
        } else {
            self = .sqlite(path: text)
        }
    }

    /// The location `text` names, for text known to be well formed: what is not a PostgreSQL
    /// URL is a file path.
    public init(_ text: String) {
        let lowered = text.lowercased()
        if lowered.hasPrefix("postgres://") || lowered.hasPrefix("postgresql://") {
            self = .postgres(url: text)
        } else if lowered.hasPrefix("sqlite:") {
            self = .sqlite(path: String(text.dropFirst("sqlite:".count)))
        } else {
            self = .sqlite(path: text)
        }
    }

    /// The location fit to show to a person: a URL's password is replaced by `***`.
    public var description: String {
        switch self {
        case .sqlite(let path): path
        case .postgres(let url): Self.redacted(url)
        }
    }

    /// `url` with the password of its user-info part replaced by `***`, even when the URL is
    /// malformed: the user information ends at the LAST `@` (a password typed with `@`, `/`,
    /// `?` or `#` in it, not percent-encoded, is still hidden whole).
    package static func redacted(_ url: String) -> String {
        guard let scheme = url.range(of: "://") else { return url }
        let rest = url[scheme.upperBound...]
        guard let at = rest.lastIndex(of: "@"), let colon = rest[..<at].firstIndex(of: ":") else { return url }
        return String(url[..<rest.index(after: colon)]) + "***" + String(url[at...])
    }
}
