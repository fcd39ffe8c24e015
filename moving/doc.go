// Package moving brings memory over from the stores people leave for
// Tenure: a NOVA database, read directly and read-only, and the JSON of
// Mem0's get_all.
//
// Each source lands through the engine's ordinary doors, so that it is held
// to the same rules as any other writer:
//
//   - NOVA's facts are already facts, with an entity, a key and their axes
//     (or NOVA's legacy single data_type): ReadNova turns its rows into the
//     stream of import lines that memory.Store.ImportStream takes from a
//     file, so they are written all or nothing, with the same checks, the
//     same data_type mapping, decisions locked and the same report.
//   - Mem0's memories are loose sentences: each becomes a working row,
//     classified on both axes by the offline classifier, pushed with the
//     others in one transaction through memory.Store.PushStream, and left to
//     consolidation, whose gates decide what becomes a fact. The file is
//     read, planned and pushed one memory at a time (StreamMem0,
//     PlanMem0Stream, ImportMem0Stream), so that memory stays flat whatever
//     its size.
//
// The package reads the NOVA database itself (it is not Tenure's); it
// never reads or writes Tenure's tables but through memory.
package moving
