internal import ShelfStore

/// What to import from.
public enum ImportSource: Sendable {
    /// A file, named in errors by this path.
    case file(String)
    /// Standard input, named "stdin" in errors.
    case standardInput
}
