/**
 * The inputs stored for a row that was not judged from its inputs here (an inventory taken whole, a
 * row holding a configured key, a job's mark): never a digest, so the next scan judges the row again.
 */
export const NO_INPUTS = "";
