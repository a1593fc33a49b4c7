/* Built-in analysis tools (each is a <paratrace/tool.h> tool). */
#ifndef PT_TOOLS_H
#define PT_TOOLS_H

#include <paratrace/tool.h>

const pt_tool *pt_tool_paraver(void); /* paraver/paraver.c */

#endif
