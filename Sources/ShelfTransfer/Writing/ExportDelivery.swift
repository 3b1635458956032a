internal import Synchronization

/// What an export has handed to its destination so far, for a caller that must say so when
/// the export stops early: an export to stdout, a FIFO or a device that is cancelled or fails
/// has delivered these bytes to its reader, who cannot tell them from a whole export. (A
/// regular file is written beside its name and renamed into place only when complete: nothing
/// of an export that stops reaches it, and `isInPlace` is false.)
///
/// Give one to `Exporter.exportItems(matching:to:options:progress:delivery:)` or
/// `Exporter.exportUsers(to:options:progress:delivery:)`; read it from any thread, during the
/// export or after it returned or threw.
public final class ExportDelivery: Sendable {
    private let byteCount = Atomic(0)
    private let rowCount = Atomic(0)
    private let rowsCounted = Atomic(true)
    private let inPlace = Atomic(false)

    /// A tally of nothing delivered yet.
    public init() {}

    /// The bytes the destination accepted (`write(2)` took them): gzip data when the export
    /// is compressed, the escaped text on a terminal.
    public var bytes: Int { byteCount.load(ordering: .acquiring) }

    /// The rows whose every byte the destination accepted; nil when the bytes do not tell
    /// (gzip data, text escaped for a terminal).
    public var rows: Int? { rowsCounted.load(ordering: .acquiring) ? rowCount.load(ordering: .acquiring) : nil }

    /// True once the destination is open and is written in place (stdout, a FIFO, a device):
    /// what was delivered stays delivered. False for a regular file.
    public var isInPlace: Bool { inPlace.load(ordering: .acquiring) }

    /// Set when the destination is open.
    func opened(inPlace: Bool, countsRows: Bool) {
        rowsCounted.store(countsRows, ordering: .releasing)
        self.inPlace.store(inPlace, ordering: .releasing)
    }

    /// `count` more bytes accepted.
    func delivered(bytes count: Int) {
        byteCount.wrappingAdd(count, ordering: .releasing)
    }

    /// `count` more rows accepted whole.
    func delivered(rows count: Int) {
        rowCount.wrappingAdd(count, ordering: .releasing)
    }
}
