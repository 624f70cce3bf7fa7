/**
 * A file read through a window of WINDOW_BYTES, byte by byte and by ranges, so that scanning a
 * payload of 100 MB holds one window and the value being parsed, never the file. Reads are
 * synchronous: the import reads the file from start to end while nothing else waits on it, and
 * a scan byte by byte through promises would be many times slower.
 */
import fs from 'node:fs'

const WINDOW_BYTES = 1024 * 1024

export class FileWindow {
  readonly length: number
  private readonly fd: number
  private readonly window = Buffer.allocUnsafe(WINDOW_BYTES)
  /** The file offset of window[0], and how many bytes of the window hold the file. */
  private start = 0
  private filled = 0

  constructor(file: string) {
    this.fd = fs.openSync(file, 'r')
    this.length = fs.fstatSync(this.fd).size
  }

  /** The byte at `offset`, or -1 past the end. */
  at(offset: number): number {
    const i = offset - this.start
    if (i >= 0 && i < this.filled) return this.window[i]
    if (offset >= this.length || offset < 0) return -1
    this.start = offset
    this.filled = fs.readSync(this.fd, this.window, 0, WINDOW_BYTES, offset)
    return this.window[0]
  }

  /** The bytes from `from` up to `to`; a view of the window when they lie in it, valid until the next read. */
  slice(from: number, to: number): Buffer {
    if (from >= this.start && to <= this.start + this.filled) return this.window.subarray(from - this.start, to - this.start)
    const bytes = Buffer.allocUnsafe(to - from)
    let read = 0
    while (read < bytes.length) {
      const n = fs.readSync(this.fd, bytes, read, bytes.length - read, from + read)
      if (n === 0) break
      read += n
    }
    return bytes.subarray(0, read)
  }

  close(): void {
    fs.closeSync(this.fd)
  }
}
