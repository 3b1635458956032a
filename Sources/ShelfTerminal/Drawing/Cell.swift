internal import Synchronization

/// One cell of a canvas: a grapheme and its style.
///
/// A wide grapheme occupies its cell and the next one, which holds an empty `text`
/// (a continuation cell). A cell is plain data with no references: a grapheme of one Unicode
/// scalar (nearly all text) is kept as that scalar, and a longer one (an emoji sequence, a
/// letter with combining marks) as its number in a shared table. Copying, comparing and
/// hashing cells, which the renderer does for every cell of every frame, is then cheap.
public struct Cell: Hashable, Sendable {
    /// The grapheme's only scalar; 0 for a continuation; `clusterFlag | n` for the n-th
    /// grapheme of `GraphemeTable`.
    private var code: UInt32
    /// How the cell is drawn.
    public var style: Style

    private static let clusterFlag: UInt32 = 0x8000_0000

    /// A cell showing `text`, which should be one grapheme; "" makes a continuation cell. The
    /// text is stored as given (not sanitized): draw through `Canvas` for sanitized text.
    public init(_ text: String = " ", style: Style = .plain) {
        self.style = style
        let scalars = text.unicodeScalars
        if scalars.isEmpty {
            code = 0
        } else if scalars.count == 1, let first = scalars.first {
            code = first.value
        } else {
            code = Self.clusterFlag | GraphemeTable.shared.number(for: text)
        }
    }

    /// A cell of one single-scalar character (0 for a continuation).
    init(scalar: UInt32, style: Style) {
        self.code = scalar
        self.style = style
    }

    /// A plain space: what a new canvas is filled with.
    public static let blank = Cell(scalar: 0x20, style: .plain)

    /// The grapheme shown, or "" for the second cell of a wide grapheme.
    public var text: String {
        get {
            if code & Self.clusterFlag != 0 { return GraphemeTable.shared.grapheme(code & ~Self.clusterFlag) }
            if code == 0 { return "" }
            return Unicode.Scalar(code).map { String(Character($0)) } ?? ""
        }
        set { self = Cell(newValue, style: style) }
    }

    /// True for the second cell of a wide grapheme.
    public var isContinuation: Bool { code == 0 }

    /// Columns the grapheme takes (1 or 2; 0 for a continuation).
    var width: Int {
        if code < 0x7F { return code == 0 ? 0 : 1 }
        return max(1, DisplayWidth.of(Character(text)))
    }

    /// Whether every terminal draws this cell in `width` columns (`DisplayWidth.isCertain`);
    /// true for a continuation.
    var hasCertainWidth: Bool {
        if code < 0x7F { return code == 0 || code >= 0x20 }
        if code & Self.clusterFlag != 0 { return false }
        return Unicode.Scalar(code).map(DisplayWidth.isCertain) ?? false
    }

    /// A cheap hash of the cell, for finding rows that moved.
    var mixed: UInt64 {
        UInt64(code) &* 0x9E37_79B9_7F4A_7C15 ^ style.packed
    }

    /// Appends the grapheme's UTF-8 bytes.
    func appendUTF8(to bytes: inout [UInt8]) {
        if code < 0x80 {
            bytes.append(UInt8(code))
        } else {
            bytes.append(contentsOf: text.utf8)
        }
    }
}

/// Graphemes of several scalars, numbered so cells can hold them as plain numbers.
/// Grows only with distinct graphemes drawn (a handful in practice). Thread-safe.
final class GraphemeTable: Sendable {
    static let shared = GraphemeTable()

    private struct Storage {
        var numbers: [String: UInt32] = [:]
        var graphemes: [String] = []
    }

    private let storage = Mutex(Storage())

    func number(for grapheme: String) -> UInt32 {
        storage.withLock { storage in
            if let number = storage.numbers[grapheme] { return number }
            let number = UInt32(storage.graphemes.count)
            storage.graphemes.append(grapheme)
            storage.numbers[grapheme] = number
            return number
        }
    }

    func grapheme(_ number: UInt32) -> String {
        storage.withLock { $0.graphemes[Int(number)] }
    }
}
