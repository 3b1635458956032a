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

    /// The location `text` names. Never fails: what is not a PostgreSQL URL is a file path.
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

    /// `url` with the password of its user-info part replaced by `***`.
    package static func redacted(_ url: String) -> String {
        guard let scheme = url.range(of: "://") else { return url }
        let rest = url[scheme.upperBound...]
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        guard let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") else {
            return url
        }
        return String(url[..<authority.index(after: colon)]) + "***" + String(url[at...])
    }
}
