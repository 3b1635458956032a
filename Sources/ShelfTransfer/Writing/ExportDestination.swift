internal import Foundation
internal import ShelfStore
internal import Synchronization

/// Where an export writes.
public enum ExportDestination: Sendable {
    /// Standard output.
    case standardOutput
    /// A file, written beside its path and renamed into place when complete, so a failed
    /// export leaves an existing file as it was; the replaced file's permission bits are kept.
    /// A device, FIFO or `/dev/stdout` is written in place. The store's database (and its
    /// `-wal`, `-shm`, `-journal`) and any SQLite file are refused with a `TransferError`.
    case file(String)
}
