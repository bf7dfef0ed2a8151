// Package checkpoint writes and reads the checkpoints of a run: everything
// needed to continue it after a given step so that the continued run ends
// in the same state, bit for bit, as the run that was never stopped (on the
// CPU path).
//
// A checkpoint file (format version 2; 3 and 4 below) is, all integers and
// floats little endian, floats as their IEEE 754 float64 bits:
//
//	magic     8 bytes "GPUSIMCK"
//	version   uint32 (2)
//	length    uint64: bytes of the body that follows
//	body:
//	  step      uint64: steps taken
//	  settings  dt f64, solver str, tol f64, max_iter i64, gd f64,
//	            warm_start u8, envelope f64, bin_size f64,
//	            max_recovery_speed f64, workers i64,
//	            precision str (version 4 only: "mixed")
//	  run       steps i64, duration f64, trace: count u64 + ids i64
//	  source    str: the scene's file or builtin:NAME
//	  params    count u64 + (name str, value f64), by name
//	  scene     bytes: the resolved scene document (JSON, scene.Dump)
//	  model     32 bytes: ModelHash of the model the run stepped
//	  state     bodies u64, then pos (3n), rot (4n), vel (3n), omega (3n)
//	  warm      u8 0 (none) or 1, then contacts u64, A, B, Sub (i32 each,
//	            m of each), gamma (3m f64), joints u64 + the joint
//	            rows' impulses (f64 each; version 2 only)
//	crc       uint32: CRC-32C (Castagnoli) of every byte before it
//
// where str and bytes are a uint64 length and the bytes. Version 1, the
// same without the warm section's joints, still reads (its runs' joint
// rows restart from zero impulses; version 2 restores them, so that a run
// with joints resumes bit for bit). Version 3 adds the rolling impulses
// (3 f64 per key) to the end of the warm section, and version 4 the
// precision to the settings and, before the rolling impulses, a u8 flag
// (0: none follow, 1: they do);
// Write writes the oldest version that holds the checkpoint (Version says
// which). Write puts the
// file in place atomically (temporary file, fsync, rename, fsync of the
// folder); Read rejects a file with another magic or version, a truncated
// or over-long one, one whose checksum does not match, and one whose
// content is out of range, each with an error naming the file and what is
// wrong.
package checkpoint
