export { EventHub, type EventListener } from "./events.js";
export {
  type CallContext,
  type CoreCall,
  type CoreCalls,
  createHandlerTable,
  dispatch,
  type Handler,
  type HandlerLog,
  type HandlerTable,
  handlerFor,
} from "./table.js";
export { invalidRequestMessage } from "./validation.js";
