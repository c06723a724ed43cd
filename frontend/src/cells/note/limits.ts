/** The longest text a note cell holds (its URL decoder refuses longer ones). */
export const NOTE_MAX_CHARS = 20000;
