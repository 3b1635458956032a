internal import ShelfStore

/// How far an import has read.
public struct ImportProgress: Sendable {
    /// Records read so far.
    public var rows: Int
    /// Bytes of the input read so far.
    public var bytesRead: Int
    /// The input's size, when it is a regular file.
    public var totalBytes: Int?
    /// True once the whole input is read and checked and the rows are being written, in one
    /// transaction that other writers wait for (about 10 s for 1,000,000 items); reported once
    /// when that begins.
    public var isWriting = false
}
