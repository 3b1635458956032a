public import ArgumentParser
public import ShelfStore
public import ShelfTransfer

// `--status open|done`, `--format csv|json|ndjson` and `--mode insert|upsert|replace` on the command line.
extension Item.Status: ExpressibleByArgument {}
extension TransferFormat: ExpressibleByArgument {}
extension ImportMode: ExpressibleByArgument {}
