public import ArgumentParser
public import ShelfStore

// `--status open|done` on the command line.
extension Item.Status: ExpressibleByArgument {}
